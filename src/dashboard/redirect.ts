/** A dashboard form's answer when it has nothing to show: 303 to the next page, never cached. */
export function redirectTo(
  set: { status?: number | string; headers: Record<string, string | number> },
  location: string,
): string {
  set.status = 303;
  set.headers.location = location;
  set.headers["cache-control"] = "no-store";
  return "";
}
