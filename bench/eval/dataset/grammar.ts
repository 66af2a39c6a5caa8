/** "a" or "an" by sound, for the words this generator produces. */

/** Vowel-letter words said with a consonant sound ("a one-bedroom", "a used car"). */
const CONSONANT_SOUND = /^(one|uni|use|usu|eu)/i;
/** Numbers said with a vowel sound: 8, 11, 18, 80–89, 800… */
const VOWEL_NUMBER = /^(8|11(?!\d)|18(?!\d))/;

/** Words with a silent h. */
const SILENT_H = /^(hour|honest|heir)/i;

export function takesAn(word: string): boolean {
  if (CONSONANT_SOUND.test(word)) return false;
  return /^[aeiou]/i.test(word) || VOWEL_NUMBER.test(word) || SILENT_H.test(word);
}

export const article = (word: string) => `${takesAn(word) ? "an" : "a"} ${word}`;

/** Every "a"/"an" before a word, set by that word's sound. */
export function fixArticles(text: string): string {
  return text.replace(/\b([Aa])n? (?=([\w$-]+))/g, (whole, a: string, next: string) => {
    if (next.startsWith("$")) return whole;
    return `${a}${takesAn(next) ? "n" : ""} `;
  });
}
