/** The CRM platform's SOAP 1.1 outbound message, as test fixtures build it. */

export function escapeXml(value: string): string {
  return value
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;");
}

/** Wraps `<Notification>` elements in the outbound-message envelope of organisation `org`. */
export function outboundEnvelope(notifications: string, org: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
 <soapenv:Body>
  <notifications xmlns="http://soap.sforce.com/2005/09/outbound">
   <OrganizationId>${org}</OrganizationId>
   <ActionId>04k5e000000AbCdAAK</ActionId>
   <SessionId xsi:nil="true"/>
   <EnterpriseUrl>https://acme.my.example.com/services/Soap/c/60.0/00D5e000000AbCd</EnterpriseUrl>
   <PartnerUrl>https://acme.my.example.com/services/Soap/u/60.0/00D5e000000AbCd</PartnerUrl>
   ${notifications}
  </notifications>
 </soapenv:Body>
</soapenv:Envelope>`;
}
