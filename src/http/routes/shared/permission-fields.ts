/**
 * The permission selection fields every turn and thread route accepts, with the same names and aliases on the
 * project and direct surfaces (translated by `agent/permissions.ts`, the one rule set).
 */
import { Type } from '@sinclair/typebox';
import type { PermissionSelection } from '../../../agent/permissions.js';

export const permissionFields = {
  sandbox: Type.Optional(Type.String({ description: 'Thread sandbox mode: read-only, workspace-write, danger-full-access' })),
  sandbox_policy: Type.Optional(
    Type.Unknown({ description: 'Legacy sandbox policy object (clients up to 0.135.0), e.g. {"type":"workspaceWrite"}' }),
  ),
  sandboxPolicy: Type.Optional(Type.Unknown({ description: 'Alias of sandbox_policy' })),
  permissions: Type.Optional(
    Type.Unknown({ description: 'Permission profile id, e.g. ":workspace" (or "workspace", or {"id": ":workspace"})' }),
  ),
  permission_profile: Type.Optional(Type.Unknown({ description: 'Alias of permissions' })),
  permissionProfile: Type.Optional(Type.Unknown({ description: 'Alias of permissions' })),
};

const first = <T>(...values: (T | undefined)[]): T | undefined => values.find((value) => value !== undefined);

/** The selection a body names, aliases folded. */
export function permissionSelectionOf(body: Record<string, unknown>): PermissionSelection {
  return {
    sandbox: body.sandbox,
    sandboxPolicy: first(body.sandbox_policy, body.sandboxPolicy),
    permissions: body.permissions,
    permissionProfile: first(body.permission_profile, body.permissionProfile),
  };
}
