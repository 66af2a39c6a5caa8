import { existsSync } from "node:fs";
import { ConfigError } from "../config/config.ts";
import { type CrmMapping, loadCrmMapping } from "../sources/crm/mapping.ts";

/**
 * The CRM source's custom mapping file: validated at start (a bad file stops the start), read again
 * on SIGHUP. A failed reload keeps the mapping in force and says why.
 */
export class CrmMappingHolder {
  private mapping: CrmMapping | undefined;

  constructor(
    private readonly path: string,
    private readonly optional: boolean,
  ) {
    try {
      this.mapping = this.read();
    } catch (error) {
      throw new ConfigError(error instanceof Error ? error.message : String(error));
    }
  }

  current(): CrmMapping | undefined {
    return this.mapping;
  }

  /** Re-reads the file; returns an error message instead of throwing, so a bad edit never stops the runtime. */
  reload(): string | undefined {
    try {
      this.mapping = this.read();
      return undefined;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  }

  private read(): CrmMapping | undefined {
    // Only the default path may be absent: a path the operator named must exist.
    if (this.optional && !existsSync(this.path)) return undefined;
    return loadCrmMapping(this.path);
  }
}
