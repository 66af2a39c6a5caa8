export interface Denial {
  at: string;
  tenant_id: string;
  sub: string;
  roles: string[];
  method: string;
  path: string;
  permission: string;
  reason: string;
}
