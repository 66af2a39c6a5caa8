import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SecretMissing } from "../src/errors/domain-errors.ts";
import { Secrets } from "../src/secrets/secrets.ts";
import { parseDotenv, readSecretsFile, SecretsFileError } from "../src/secrets/secrets-file.ts";

const T1 = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
const T2 = "01JDB2X6J3KQ5W8Z3M4N7P9R2T";
const dir = mkdtempSync(join(tmpdir(), "mrt-secrets-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function secretsFile(name: string, text: string, mode = 0o600): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

describe("parseDotenv", () => {
  test("names, export, quotes with escapes, literal quotes, comments and blank lines; a later line wins", () => {
    const parsed = parseDotenv(
      [
        "# per-tenant secrets",
        "",
        `DATA_WEBHOOK_TOKEN_${T1}=plain-token`,
        `export PAYMENTS_WEBHOOK_SECRET_${T1}="whsec with \\"quotes\\" and \\\\ and \\n"`,
        `  CRM_PRIVATE_KEY_${T1} = 'literal $NOT_EXPANDED \\n'  `,
        `INLINE_${T1}=value # a comment`,
        `DATA_WEBHOOK_TOKEN_${T1}=second-wins`,
      ].join("\n"),
    );
    expect(parsed).toEqual({
      [`DATA_WEBHOOK_TOKEN_${T1}`]: "second-wins",
      [`PAYMENTS_WEBHOOK_SECRET_${T1}`]: 'whsec with "quotes" and \\ and \n',
      [`CRM_PRIVATE_KEY_${T1}`]: "literal $NOT_EXPANDED \\n",
      [`INLINE_${T1}`]: "value",
    });
  });

  test("a line named __proto__ is a variable like any other", () => {
    const parsed = parseDotenv("__proto__=x\nA=1\n");
    expect(Object.getOwnPropertyDescriptor(parsed, "__proto__")?.value).toBe("x");
    expect(Object.keys(parsed)).toEqual(["__proto__", "A"]);
  });

  test("a malformed line is refused by its number, never its content", () => {
    for (const text of [
      "GOOD=1\nthis is not an assignment with secret-value",
      'A="unterminated secret-value',
    ]) {
      try {
        parseDotenv(text);
        throw new Error("accepted");
      } catch (error) {
        expect(error).toBeInstanceOf(SecretsFileError);
        expect((error as Error).message).toMatch(/^line \d+ /);
        expect((error as Error).message).not.toContain("secret-value");
      }
    }
  });
});

describe("readSecretsFile", () => {
  test("a file readable by group or others is refused, naming the mode", () => {
    for (const mode of [0o640, 0o604, 0o660, 0o644]) {
      const path = secretsFile(`open-${mode.toString(8)}`, "A=secret-value\n", mode);
      expect(() => readSecretsFile(path)).toThrow(/chmod 600/);
    }
    expect(readSecretsFile(secretsFile("closed", "A=1\n", 0o600))).toEqual({ A: "1" });
    expect(readSecretsFile(secretsFile("read-only", "A=1\n", 0o400))).toEqual({ A: "1" });
  });

  test("a missing file is refused by name", () => {
    expect(() => readSecretsFile(join(dir, "absent"))).toThrow(/ENOENT/);
  });
});

describe("Secrets", () => {
  test("the environment wins over the file; empty values are absent", () => {
    const path = secretsFile(
      "layers",
      `DATA_WEBHOOK_TOKEN_${T1}=from-file\nDATA_WEBHOOK_TOKEN_${T2}=file-only\n`,
    );
    const secrets = new Secrets({ [`DATA_WEBHOOK_TOKEN_${T1}`]: "from-env", [`X_${T2}`]: "" }, path);
    expect(secrets.get("DATA_WEBHOOK_TOKEN", T1)).toBe("from-env");
    expect(secrets.get("DATA_WEBHOOK_TOKEN", T2)).toBe("file-only");
    expect(secrets.get("X", T2)).toBeUndefined();
    expect(() => secrets.require(["X"], T2)).toThrow(SecretMissing);
  });

  test("reload reports the tenants whose effective variables changed, and keeps the old values when refused", () => {
    const path = secretsFile("reload", `A_${T1}=1\nB_${T2}=1\nENVSET_${T2}=file\n`);
    const secrets = new Secrets({ [`ENVSET_${T2}`]: "env" }, path);
    writeFileSync(path, `A_${T1}=2\nB_${T2}=1\nENVSET_${T2}=file-changed\nNOT_A_TENANT=x\n`);
    expect([...secrets.reload()]).toEqual([T1]);
    expect(secrets.get("A", T1)).toBe("2");
    writeFileSync(path, `B_${T2}=1\n`);
    expect([...secrets.reload()]).toEqual([T1]);
    expect(secrets.get("A", T1)).toBeUndefined();
    chmodSync(path, 0o644);
    expect(() => secrets.reload()).toThrow(SecretsFileError);
    expect(secrets.get("B", T2)).toBe("1");
  });

  test("without a file, reload changes nothing", () => {
    const secrets = new Secrets({ [`A_${T1}`]: "x" });
    expect(secrets.reloadable).toBe(false);
    expect(secrets.reload().size).toBe(0);
  });
});
