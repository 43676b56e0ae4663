/** Row types of the gateway tables. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface GatewayTables {}
