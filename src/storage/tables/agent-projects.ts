/** Row types of managed projects and the project event log. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AgentProjectTables {}
