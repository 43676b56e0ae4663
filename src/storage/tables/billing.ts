/** Row types of the billing tables. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface BillingTables {}
