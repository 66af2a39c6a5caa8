/**
 * What a question's answer looks like, where its first words say so: "how much / how many / how
 * long …" is answered by a quantity (a digit in the entry), "when / what year …" by a time (a date,
 * a month or weekday, "yesterday", "last week", "two years ago"). The built-in re-ranker prefers,
 * among close candidates, one that has that shape: an echo ("A guitar, wow!") names the thing
 * asked about without answering. English only; any other question has no shape.
 */

const QUANTITY = /^\s*(how (much|many|long|old|far|often)|what (price|amount|percentage))\b/i;
const WHEN = /^\s*(when|what (year|month|day|date|time))\b/i;
const DIGIT = /\d/;
const TIME_WORD =
  /\b(\d{4}|yesterday|today|tomorrow|tonight|last|ago|next|week|weekend|month|year|january|february|march|april|may|june|july|august|september|october|november|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|morning|evening|night)\b/i;

/** Whether a content has the shape the question's answer has; undefined when the question says none. */
export function answerShape(query: string): ((content: string) => boolean) | undefined {
  if (QUANTITY.test(query)) return (content) => DIGIT.test(content);
  if (WHEN.test(query)) return (content) => TIME_WORD.test(content);
  return undefined;
}
