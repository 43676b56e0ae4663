/** A managed project as the list and the live view show it. */
import type { Answer } from '../../shared/api';
import { dateTime } from '../../shared/format';

export type ProjectSummary = Answer<'/api/v1/projects'>['data'][number];

/** What a project is called where it has no name of its own. */
export function projectTitle(project: { name: string | null; created_at: number }): string {
  return project.name ?? `Untitled project · ${dateTime(project.created_at)}`;
}
