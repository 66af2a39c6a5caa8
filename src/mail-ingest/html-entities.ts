/**
 * HTML character references for mail bodies. The kit's decoder knows only the five XML entities;
 * HTML mail also uses `&nbsp;`, `&eacute;`, `&rsquo;`, `&mdash;` and friends. This table covers
 * Latin-1 and the common typography; an unknown name stays as written. One pass, so `&amp;lt;`
 * becomes `&lt;`, never `<`.
 */
import { decodeEntities } from "../sources/kit/entities.ts";

/** The HTML 4 names of U+00A0..U+00FF, in code point order. */
const LATIN1 = (
  "nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr " +
  "deg plusmn sup2 sup3 acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest " +
  "Agrave Aacute Acirc Atilde Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml " +
  "ETH Ntilde Ograve Oacute Ocirc Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig " +
  "agrave aacute acirc atilde auml aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml " +
  "eth ntilde ograve oacute ocirc otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml"
).split(" ");

const OTHERS: Record<string, number> = {
  amp: 0x26,
  lt: 0x3c,
  gt: 0x3e,
  quot: 0x22,
  apos: 0x27,
  OElig: 0x152,
  oelig: 0x153,
  Scaron: 0x160,
  scaron: 0x161,
  Yuml: 0x178,
  fnof: 0x192,
  circ: 0x2c6,
  tilde: 0x2dc,
  ensp: 0x2002,
  emsp: 0x2003,
  thinsp: 0x2009,
  zwnj: 0x200c,
  zwj: 0x200d,
  lrm: 0x200e,
  rlm: 0x200f,
  ndash: 0x2013,
  mdash: 0x2014,
  lsquo: 0x2018,
  rsquo: 0x2019,
  sbquo: 0x201a,
  ldquo: 0x201c,
  rdquo: 0x201d,
  bdquo: 0x201e,
  dagger: 0x2020,
  Dagger: 0x2021,
  bull: 0x2022,
  hellip: 0x2026,
  permil: 0x2030,
  prime: 0x2032,
  Prime: 0x2033,
  lsaquo: 0x2039,
  rsaquo: 0x203a,
  euro: 0x20ac,
  trade: 0x2122,
  larr: 0x2190,
  uarr: 0x2191,
  rarr: 0x2192,
  darr: 0x2193,
  hearts: 0x2665,
  check: 0x2713,
};

const NAMED = new Map<string, string>([
  ...LATIN1.map((name, i): [string, string] => [name, String.fromCodePoint(0xa0 + i)]),
  ...Object.entries(OTHERS).map(([name, code]): [string, string] => [name, String.fromCodePoint(code)]),
]);

export function decodeHtmlEntities(value: string): string {
  if (!value.includes("&")) return value;
  return value.replace(
    /&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});/g,
    (whole, ref: string) => (ref.startsWith("#") ? decodeEntities(whole) : (NAMED.get(ref) ?? whole)),
  );
}
