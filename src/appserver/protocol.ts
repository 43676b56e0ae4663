/**
 * The slice of the app-server protocol the bridge uses, typed from the generated schema
 * (`scripts/generate-appserver-types.mjs` → `./generated`, produced at build time for the pinned binary).
 */
import type { InitializeParams, InitializeResponse, RequestId } from './generated/index.js';
import type {
  ModelListParams,
  ModelListResponse,
  PermissionProfileListParams,
  PermissionProfileListResponse,
  SkillsListParams,
  SkillsListResponse,
  ThreadListParams,
  ThreadListResponse,
  ThreadLoadedListParams,
  ThreadLoadedListResponse,
  ThreadReadParams,
  ThreadReadResponse,
  ThreadResumeParams,
  ThreadResumeResponse,
  ThreadStartParams,
  ThreadStartResponse,
  TurnInterruptParams,
  TurnInterruptResponse,
  TurnStartParams,
  TurnStartResponse,
} from './generated/v2/index.js';

export type * from './generated/v2/index.js';
export type { InitializeParams, InitializeResponse, RequestId };

/** Client → server methods: params and result of each. */
export interface ClientMethods {
  initialize: [InitializeParams, InitializeResponse];
  'thread/start': [ThreadStartParams, ThreadStartResponse];
  'thread/resume': [ThreadResumeParams, ThreadResumeResponse];
  'thread/read': [ThreadReadParams, ThreadReadResponse];
  'thread/list': [ThreadListParams, ThreadListResponse];
  'thread/loaded/list': [ThreadLoadedListParams, ThreadLoadedListResponse];
  'turn/start': [TurnStartParams, TurnStartResponse];
  'turn/interrupt': [TurnInterruptParams, TurnInterruptResponse];
  'model/list': [ModelListParams, ModelListResponse];
  'permissionProfile/list': [PermissionProfileListParams, PermissionProfileListResponse];
  'skills/list': [SkillsListParams, SkillsListResponse];
}
export type ClientMethod = keyof ClientMethods;
