/** Row types of the agent tables. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AgentTables {}
