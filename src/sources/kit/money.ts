/**
 * Amounts as platforms send them: most in the currency's minor unit (2000 = 20.00 USD), which
 * entries keep in major units. Zero-decimal and three-decimal currencies follow ISO 4217.
 */
import { amountOf, currencyOf } from "./draft.ts";

const ZERO_DECIMAL = new Set([
  "BIF",
  "CLP",
  "DJF",
  "GNF",
  "JPY",
  "KMF",
  "KRW",
  "MGA",
  "PYG",
  "RWF",
  "UGX",
  "VND",
  "VUV",
  "XAF",
  "XOF",
  "XPF",
]);
const THREE_DECIMAL = new Set(["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]);

/** `minor` units of `currency` in major units (2000 USD cents → 20), or undefined when not a number. */
export function fromMinorUnits(minor: unknown, currency: unknown): number | undefined {
  const n = amountOf(minor);
  if (n === undefined) return undefined;
  const code = currencyOf(currency) ?? "USD";
  const exponent = ZERO_DECIMAL.has(code) ? 0 : THREE_DECIMAL.has(code) ? 3 : 2;
  return Math.round(n) / 10 ** exponent;
}

export interface Money {
  amount: number | undefined;
  currency: string | undefined;
}

/** An amount and its ISO 4217 currency, the amount in major units (given in minor units when `minor`). */
export function moneyOf(amount: unknown, currency: unknown, minor = false): Money {
  return {
    amount: minor ? fromMinorUnits(amount, currency) : amountOf(amount),
    currency: currencyOf(currency),
  };
}

/** ` of 49.99 EUR` (with `word` " of", " for", …), or "" when there is no amount. */
export function moneyPhrase(money: Money, word: string): string {
  return money.amount === undefined ? "" : `${word} ${money.amount} ${money.currency ?? ""}`.trimEnd();
}
