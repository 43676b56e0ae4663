import type { Kysely } from 'kysely';

export async function up(_db: Kysely<unknown>): Promise<void> {
  // Tables of this domain are added here before the first release.
}
