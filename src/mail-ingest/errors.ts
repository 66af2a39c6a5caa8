/** What the mail ingest command refuses, named for what went wrong (the CLI exits 2 on a UsageError). */
import { AppError } from "../errors/domain-errors.ts";

/** Bad or missing arguments or environment; the message says which, never a secret's value. */
export class UsageError extends AppError {
  override readonly status = 400;
  override readonly code = "mail_ingest_usage";
  override readonly title = "Bad arguments";
}

/** `--label` names no label of the mailbox. */
export class LabelNotFound extends AppError {
  override readonly status = 404;
  override readonly code = "mail_label_not_found";
  override readonly title = "Label not found";
}
