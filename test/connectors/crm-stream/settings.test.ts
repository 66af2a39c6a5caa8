import { describe, expect, test } from "bun:test";
import { crmSettingsOf } from "../../../actors/connectors/crm-stream/settings.ts";
import { Secrets } from "../../../src/secrets/secrets.ts";
import { crmKeyPair } from "../../fakes/crm-platform.ts";

const keys = crmKeyPair();

describe("crmSettingsOf", () => {
  const T = "01JDB2X6J3KQ5W8Z3M4N7P9R2S";
  const base = {
    [`CRM_CLIENT_ID_${T}`]: "cid",
    [`CRM_PRIVATE_KEY_${T}`]: keys.privateKeyBase64,
    [`CRM_USERNAME_${T}`]: "u@example.com",
    [`CRM_INSTANCE_URL_${T}`]: "https://acme.my.example.com/",
  };

  test("the audience is CRM_LOGIN_URL_{T}, else the process-wide CRM_LOGIN_URL, else the instance URL", () => {
    const read = (env: Record<string, string>, login?: string) => {
      const r = crmSettingsOf(new Secrets(env), T, login);
      if (!r.ok) throw new Error(r.reason);
      return r.settings;
    };
    expect(read(base).audience).toBe("https://acme.my.example.com");
    expect(read(base, "https://login.example.com").audience).toBe("https://login.example.com");
    expect(
      read({ ...base, [`CRM_LOGIN_URL_${T}`]: "https://test.example.com" }, "https://login.example.com")
        .audience,
    ).toBe("https://test.example.com");
  });

  test("channels are comma-separated with /data/ChangeEvents by default; the API version defaults too", () => {
    const r = crmSettingsOf(
      new Secrets({ ...base, [`CRM_STREAM_CHANNELS_${T}`]: " /data/AccountChangeEvent, /event/Order__e ," }),
      T,
    );
    expect(r.ok && r.settings.channels).toEqual(["/data/AccountChangeEvent", "/event/Order__e"]);
    const d = crmSettingsOf(new Secrets(base), T);
    expect(d.ok && [d.settings.channels, d.settings.apiVersion, d.settings.streamUrl]).toEqual([
      ["/data/ChangeEvents"],
      "62.0",
      undefined,
    ]);
  });

  test("missing secrets are named; insecure URLs and bad channels are refused", () => {
    expect(crmSettingsOf(new Secrets({}), T)).toEqual({
      ok: false,
      state: "not_configured",
      reason: `missing CRM_CLIENT_ID_${T}, CRM_PRIVATE_KEY_${T}, CRM_USERNAME_${T}, CRM_INSTANCE_URL_${T}`,
    });
    const refused = (extra: Record<string, string>) => crmSettingsOf(new Secrets({ ...base, ...extra }), T);
    expect(refused({ [`CRM_STREAM_URL_${T}`]: "http://stream.example.com" })).toMatchObject({
      ok: false,
      state: "refused",
    });
    expect(refused({ [`CRM_LOGIN_URL_${T}`]: "http://login.example.com" })).toMatchObject({
      ok: false,
      state: "refused",
    });
    expect(refused({ [`CRM_STREAM_CHANNELS_${T}`]: "data/no-slash" })).toMatchObject({
      ok: false,
      state: "refused",
    });
  });
});
