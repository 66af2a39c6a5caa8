/** Proper names in a sentence: what a relationship or a residence names, as spans of the text. */

/** A capitalised word (letters, digits, `&`, `'`, `-`, `.` inside), the unit of a proper name. */
const WORD = String.raw`[A-Z][\p{L}\p{N}&'’-]*(?:\.[A-Z][\p{L}\p{N}]*)*`;

/** One to four capitalised words, `of`/`de`/`and`/`&` allowed between them ("Bank of Lisbon"). */
export const NAME = `${WORD}(?: (?:(?:of|de|del|da|van|von|and|&) )?${WORD}){0,3}`;

/** Words that start a sentence capitalised without being anyone's name. */
const NOT_NAMES = new Set(
  [
    "I",
    "We",
    "You",
    "They",
    "He",
    "She",
    "It",
    "The",
    "This",
    "That",
    "My",
    "Our",
    "Your",
    "His",
    "Her",
    "Their",
    "Everyone",
    "Nobody",
    "Someone",
    "Actually",
    "Also",
    "And",
    "But",
    "So",
    "Well",
    "Yes",
    "No",
    "Oh",
    "Then",
    "First",
    "Finally",
    "Maybe",
    "Today",
    "Tomorrow",
    "Yesterday",
  ].map((w) => w.toLowerCase()),
);

/** Whether a matched name is a name, not a capitalised sentence opener ("The", "We"). */
export function isName(text: string): boolean {
  const first = text.split(" ")[0] ?? "";
  return first.length > 1 && !NOT_NAMES.has(first.toLowerCase());
}

/** A holder as a key: lower case, single spaces ("Ada Lovelace" and "ada lovelace" are one person). */
export function holderKey(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, " ");
}
