/** A preValidation for routes whose body is optional: no body (or `null`) means "all defaults", i.e. `{}`. */
export async function emptyBodyAsObject(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}
