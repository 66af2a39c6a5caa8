/**
 * Looks for planted secrets in everything a run produced. Each secret is searched in every form it
 * could take on the way out (as is, base64, base64url, hex of its bytes, and for keys given encoded,
 * the decoded key material) in every text recorded: responses with their status and headers, log
 * files, pages, files at rest. The places a secret belongs in (the answer that issues it, the
 * store that must keep it) are named when it is planted and skipped for that secret only.
 */

export interface Planted {
  /** What it is, for the report: `PAYMENTS_WEBHOOK_SECRET (tenant A)`, `admin token`. */
  name: string;
  value: string;
  /** Places (labels given to `record`) this secret belongs in: where it is issued or must be kept. */
  belongsIn?: readonly string[];
}

export interface Leak {
  secret: string;
  form: string;
  place: string;
  excerpt: string;
}

/** Shorter forms would match by chance. */
const MIN_FORM_CHARS = 12;

/** The forms a secret may take in a text: the value, its bytes in base64, base64url and hex. */
export function formsOf(value: string): Array<{ form: string; text: string }> {
  const bytes = Buffer.from(value, "utf8");
  const forms = [
    { form: "raw", text: value },
    { form: "base64", text: bytes.toString("base64").replace(/=+$/, "") },
    { form: "base64url", text: bytes.toString("base64url") },
    { form: "hex", text: bytes.toString("hex") },
    { form: "HEX", text: bytes.toString("hex").toUpperCase() },
    { form: "url-encoded", text: encodeURIComponent(value) },
    { form: "json-escaped", text: JSON.stringify(value).slice(1, -1) },
  ];
  const decoded = decodedKey(value);
  if (decoded) forms.push(...formsOf(decoded).map((f) => ({ form: `decoded ${f.form}`, text: f.text })));
  return uniqueForms(forms);
}

/**
 * Key material given encoded: a `whsec_` secret's base64 bytes, a base64 PEM's key body (its
 * first 64 base64 characters are as distinctive as the whole key).
 */
function decodedKey(value: string): string | undefined {
  if (value.startsWith("whsec_")) return Buffer.from(value.slice(6), "base64").toString("latin1");
  if (!/^[A-Za-z0-9+/=]{200,}$/.test(value)) return undefined;
  const pem = Buffer.from(value, "base64").toString("utf8");
  const body = /-----BEGIN [A-Z ]+-----\s*([A-Za-z0-9+/=\s]+?)-----END/.exec(pem)?.[1];
  return body?.replace(/\s+/g, "").slice(0, 64);
}

function uniqueForms(forms: Array<{ form: string; text: string }>) {
  const seen = new Set<string>();
  return forms.filter((f) => {
    if (f.text.length < MIN_FORM_CHARS || seen.has(f.text)) return false;
    seen.add(f.text);
    return true;
  });
}

/** The texts of a run, each under the label of the place it came from. */
export class LeakScan {
  private readonly places: Array<{ place: string; text: string }> = [];

  record(place: string, text: string): void {
    this.places.push({ place, text });
  }

  /** A response as a text: status, every header and the body. Returns the body. */
  async recordResponse(place: string, res: Response): Promise<string> {
    const body = await res.text();
    const headers: string[] = [];
    res.headers.forEach((value, name) => {
      headers.push(`${name}: ${value}`);
    });
    this.record(place, `${res.status}\n${headers.join("\n")}\n\n${body}`);
    return body;
  }

  get placeCount(): number {
    return this.places.length;
  }

  /** Every form of every secret found anywhere but where it was issued; `checks` counts the searches. */
  scan(planted: readonly Planted[]): { leaks: Leak[]; checks: number; forms: number } {
    const leaks: Leak[] = [];
    let checks = 0;
    let formCount = 0;
    for (const secret of planted) {
      const forms = formsOf(secret.value);
      formCount += forms.length;
      for (const { place, text } of this.places) {
        if (secret.belongsIn?.includes(place)) continue;
        for (const { form, text: needle } of forms) {
          checks++;
          const at = text.indexOf(needle);
          if (at < 0) continue;
          const excerpt = text
            .slice(Math.max(0, at - 60), at + needle.length + 20)
            .replaceAll(needle, "«SECRET»");
          leaks.push({ secret: secret.name, form, place, excerpt });
        }
      }
    }
    return { leaks, checks, forms: formCount };
  }
}
