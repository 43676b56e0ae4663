/**
 * Generated from the service's OpenAPI document (GET /openapi.json) by openapi-typescript. Do not edit by hand:
 * change the route schemas (src/http/contract, the routes' own schemas) and run `npm run generate:api-client`.
 * test/web/api-client-fresh.test.ts fails when this file is stale.
 */
export interface paths {
  '/api/core/releases/current': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The app-server release that runs here and the reference CLI target */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              app_server_version: string | null;
              legacy_sandbox_policy_clients_max: unknown;
              pinned_version: string;
              reference_cli_target: string;
              source: string;
              synced: boolean;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Server-sent events of your direct threads (id: sequence number, event: app-server method or approval/*); resumes after Last-Event-ID */
    get: {
      parameters: {
        query?: {
          after?: number;
          /** @description Operators only: the customer whose app-server to use */
          customer_id?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Events of your direct threads (id: sequence number; event: app-server method or approval/*). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/models': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Models threads can use (the app-server catalog merged with the gateway models and aliases) */
    get: {
      parameters: {
        query?: {
          /** @description Operators only: the customer whose app-server to use */
          customer_id?: number;
          include_hidden?: boolean;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description Threads can use it */
                agent: boolean;
                capabilities: Record<string, never> | null;
                default_reasoning_effort: string | null;
                display_name: string;
                /** @description Callable on /v1 */
                gateway: boolean;
                hidden: boolean;
                id: string;
                input_modalities: string[];
                is_default: boolean;
                pricing: Record<string, never> | null;
                supported_reasoning_efforts: string[];
                type: 'model' | 'alias';
              }[];
              /** @enum {string} */
              object: 'list';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/projects/open': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Open a working directory: resume its latest thread, else start one; a prompt starts a turn */
    post: {
      parameters: {
        query?: {
          /** @description Operators only: the customer whose app-server to use */
          customer_id?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description untrusted, on-request or never */
            approval_policy?: string;
            approvalPolicy?: string;
            base_instructions?: string;
            baseInstructions?: string;
            cwd: string;
            developer_instructions?: string;
            developerInstructions?: string;
            effort?: string;
            model?: string;
            /** @description Alias of permissions */
            permission_profile?: unknown;
            /** @description Alias of permissions */
            permissionProfile?: unknown;
            /** @description Permission profile id, e.g. ":workspace" (or "workspace", or {"id": ":workspace"}) */
            permissions?: unknown;
            prompt?: string;
            /** @description Thread sandbox mode: read-only, workspace-write, danger-full-access */
            sandbox?: string;
            /** @description Legacy sandbox policy object (clients up to 0.135.0), e.g. {"type":"workspaceWrite"} */
            sandbox_policy?: unknown;
            /** @description Alias of sandbox_policy */
            sandboxPolicy?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              active_permission_profile: unknown;
              approval_policy: unknown;
              cwd: string;
              model: string;
              model_provider: string;
              reasoning_effort: unknown;
              resumed: boolean;
              sandbox: unknown;
              thread: {
                active_turn_id: string | null;
                /** @description Epoch milliseconds */
                created_at: number;
                /** @description Relative to your workspace root */
                cwd: string;
                forked_from_id: string | null;
                id: string;
                model_provider: string;
                name: string | null;
                preview: string;
                status: {
                  /** @description notLoaded, idle, systemError or active */
                  type: string;
                };
                turns?: {
                  id: string;
                }[];
                /** @description Epoch milliseconds */
                updated_at: number;
              };
              turn: {
                status: string;
                thread_id: string;
                turn_id: string;
              } | null;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/rpc': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** One JSON-RPC 2.0 request to your app-server (guarded allow-list); errors are JSON-RPC error objects */
    post: {
      parameters: {
        query?: {
          /** @description Operators only: the customer whose app-server to use */
          customer_id?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      /** @description {"jsonrpc":"2.0","id":1,"method":"thread/goal/get","params":{…}} */
      requestBody: {
        content: {
          'application/json': unknown;
        };
      };
      responses: {
        /** @description A JSON-RPC 2.0 answer: the result, or an error object (refusals and app-server errors alike). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json':
              | {
                  id: (string | number) | null;
                  /** @enum {string} */
                  jsonrpc: '2.0';
                  result: unknown;
                }
              | {
                  error: {
                    code: number;
                    data?: unknown;
                    message: string;
                  };
                  id: (string | number) | null;
                  /** @enum {string} */
                  jsonrpc: '2.0';
                };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/rpc/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Server-sent notifications of your passthrough session (the direct threads stream; approvals included) */
    get: {
      parameters: {
        query?: {
          after?: number;
          /** @description Operators only: the customer whose app-server to use */
          customer_id?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Notifications of your passthrough session (the direct threads stream). */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/status/regions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Regional availability (measured from each region health URL, cached briefly) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description Ids of the regions available now */
              available: string[];
              regions: {
                available: boolean;
                id: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/threads': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Your threads, newest first (cursor paging) */
    get: {
      parameters: {
        query?: {
          archived?: boolean;
          cursor?: string;
          /** @description Operators only: the customer whose app-server to use */
          customer_id?: number;
          cwd?: string;
          limit?: number;
          search_term?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              backwards_cursor?: string | null;
              data: {
                active_turn_id: string | null;
                /** @description Epoch milliseconds */
                created_at: number;
                /** @description Relative to your workspace root */
                cwd: string;
                forked_from_id: string | null;
                id: string;
                model_provider: string;
                name: string | null;
                preview: string;
                status: {
                  /** @description notLoaded, idle, systemError or active */
                  type: string;
                };
                turns?: {
                  id: string;
                }[];
                /** @description Epoch milliseconds */
                updated_at: number;
              }[];
              next_cursor: string | null;
            };
          };
        };
      };
    };
    put?: never;
    /** Start a thread in a working directory inside your workspace root */
    post: {
      parameters: {
        query?: {
          /** @description Operators only: the customer whose app-server to use */
          customer_id?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description untrusted, on-request or never */
            approval_policy?: string;
            approvalPolicy?: string;
            base_instructions?: string;
            baseInstructions?: string;
            /** @description Working directory inside your workspace root (absolute, or relative to it) */
            cwd?: string;
            developer_instructions?: string;
            developerInstructions?: string;
            effort?: string;
            model?: string;
            /** @description Alias of permissions */
            permission_profile?: unknown;
            /** @description Alias of permissions */
            permissionProfile?: unknown;
            /** @description Permission profile id, e.g. ":workspace" (or "workspace", or {"id": ":workspace"}) */
            permissions?: unknown;
            /** @description Thread sandbox mode: read-only, workspace-write, danger-full-access */
            sandbox?: string;
            /** @description Legacy sandbox policy object (clients up to 0.135.0), e.g. {"type":"workspaceWrite"} */
            sandbox_policy?: unknown;
            /** @description Alias of sandbox_policy */
            sandboxPolicy?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              active_permission_profile: unknown;
              approval_policy: unknown;
              cwd: string;
              model: string;
              model_provider: string;
              reasoning_effort: unknown;
              sandbox: unknown;
              thread: {
                active_turn_id: string | null;
                /** @description Epoch milliseconds */
                created_at: number;
                /** @description Relative to your workspace root */
                cwd: string;
                forked_from_id: string | null;
                id: string;
                model_provider: string;
                name: string | null;
                preview: string;
                status: {
                  /** @description notLoaded, idle, systemError or active */
                  type: string;
                };
                turns?: {
                  id: string;
                }[];
                /** @description Epoch milliseconds */
                updated_at: number;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/threads/{thread_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One thread, optionally with its turns */
    get: {
      parameters: {
        query?: {
          include_turns?: boolean;
        };
        header?: never;
        path: {
          thread_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              active_turn_id: string | null;
              /** @description Epoch milliseconds */
              created_at: number;
              /** @description Relative to your workspace root */
              cwd: string;
              forked_from_id: string | null;
              id: string;
              model_provider: string;
              name: string | null;
              preview: string;
              project_id: string | null;
              status: {
                /** @description notLoaded, idle, systemError or active */
                type: string;
              };
              turns?: {
                id: string;
              }[];
              /** @description Epoch milliseconds */
              updated_at: number;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/threads/{thread_id}/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Approvals of a direct thread (pending by default) */
    get: {
      parameters: {
        query?: {
          status?: 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost' | 'all';
        };
        header?: never;
        path: {
          thread_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                available_decisions: unknown;
                changes: unknown;
                command: unknown;
                created_at: number;
                cwd: unknown;
                decision: unknown;
                expires_at: number;
                finished_at: number | null;
                item_id: string;
                kind: 'commandExecution' | 'fileChange';
                reason: unknown;
                request_id: string;
                status: 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost';
                thread_id: string;
                turn_id: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/threads/{thread_id}/approvals/{request_id}/resolve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Resolve an approval of a direct thread; an empty body means {decision: "accept"}; twice → 409 */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          request_id: string;
          thread_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            decision?: 'accept' | 'acceptForSession' | 'decline' | 'cancel';
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              available_decisions: unknown;
              changes: unknown;
              command: unknown;
              created_at: number;
              cwd: unknown;
              decision: unknown;
              decision_applied: string;
              expires_at: number;
              finished_at: number | null;
              item_id: string;
              kind: 'commandExecution' | 'fileChange';
              reason: unknown;
              request_id: string;
              status: 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost';
              thread_id: string;
              turn_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/threads/{thread_id}/resume': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Resume a thread (optional setting overrides) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          thread_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description untrusted, on-request or never */
            approval_policy?: string;
            approvalPolicy?: string;
            base_instructions?: string;
            baseInstructions?: string;
            /** @description Working directory inside your workspace root (absolute, or relative to it) */
            cwd?: string;
            developer_instructions?: string;
            developerInstructions?: string;
            effort?: string;
            model?: string;
            /** @description Alias of permissions */
            permission_profile?: unknown;
            /** @description Alias of permissions */
            permissionProfile?: unknown;
            /** @description Permission profile id, e.g. ":workspace" (or "workspace", or {"id": ":workspace"}) */
            permissions?: unknown;
            /** @description Thread sandbox mode: read-only, workspace-write, danger-full-access */
            sandbox?: string;
            /** @description Legacy sandbox policy object (clients up to 0.135.0), e.g. {"type":"workspaceWrite"} */
            sandbox_policy?: unknown;
            /** @description Alias of sandbox_policy */
            sandboxPolicy?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              active_permission_profile: unknown;
              approval_policy: unknown;
              cwd: string;
              model: string;
              model_provider: string;
              reasoning_effort: unknown;
              sandbox: unknown;
              thread: {
                active_turn_id: string | null;
                /** @description Epoch milliseconds */
                created_at: number;
                /** @description Relative to your workspace root */
                cwd: string;
                forked_from_id: string | null;
                id: string;
                model_provider: string;
                name: string | null;
                preview: string;
                status: {
                  /** @description notLoaded, idle, systemError or active */
                  type: string;
                };
                turns?: {
                  id: string;
                }[];
                /** @description Epoch milliseconds */
                updated_at: number;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/turns': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start a turn on a thread (409 while one runs) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description untrusted, on-request or never */
            approval_policy?: string;
            approvalPolicy?: string;
            cwd?: string;
            effort?: string;
            /** @description Text, or a list of {type:"text",text} and {type:"image",url:"data:…"} items */
            input: unknown;
            model?: string;
            /** @description Alias of permissions */
            permission_profile?: unknown;
            /** @description Alias of permissions */
            permissionProfile?: unknown;
            /** @description Permission profile id, e.g. ":workspace" (or "workspace", or {"id": ":workspace"}) */
            permissions?: unknown;
            /** @description Thread sandbox mode: read-only, workspace-write, danger-full-access */
            sandbox?: string;
            /** @description Legacy sandbox policy object (clients up to 0.135.0), e.g. {"type":"workspaceWrite"} */
            sandbox_policy?: unknown;
            /** @description Alias of sandbox_policy */
            sandboxPolicy?: unknown;
            thread_id?: string;
            threadId?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              status: string;
              thread_id: string;
              turn_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/turns/{turn_id}/interrupt': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Interrupt a running turn (409 when it is not running) */
    post: {
      parameters: {
        query: {
          thread_id: string;
        };
        header?: never;
        path: {
          turn_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              interrupted: true;
              thread_id: string;
              turn_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/activity': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Billed calls and agent turns, newest first: key, requested → resolved model, tokens, cost, latency, outcome, request id; filters and totals */
    get: {
      parameters: {
        query?: {
          /** @description The `next_before` of the previous page. */
          before?: number;
          /** @description The last N UTC days, today included. */
          days?: number;
          /** @description Only calls made with this key. */
          key_id?: number;
          kind?: 'call' | 'agent_turn';
          limit?: number;
          /** @description Requested or resolved model id. */
          model?: string;
          outcome?: 'completed' | 'failed' | 'aborted' | 'expired' | 'open';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              entries: {
                cached_input_tokens: number;
                /** @description Billed model calls in this entry (an agent turn makes several). */
                calls: number;
                cost: {
                  micros: number;
                  /** @example 0.000420 */
                  usd: string;
                };
                /** @description The turn id of an agent turn, `call_<n>` for a call. */
                id: string;
                input_tokens: number;
                key: {
                  id: number;
                  last_four: string;
                  name: string;
                } | null;
                kind: 'call' | 'agent_turn';
                /** @description From the hold to the end of the answer; null while open. */
                latency_ms: number | null;
                /** @description The configured model it resolved to. */
                model: string;
                /** @example chat */
                operation: string;
                outcome: 'completed' | 'failed' | 'aborted' | 'expired' | 'open';
                output_tokens: number;
                project: {
                  id: string;
                  name: string | null;
                } | null;
                request_id: string;
                /** @description What the caller asked for (an alias such as power-ai, or a model id). */
                requested_model: string;
                /** Format: date-time */
                started_at: string;
                turn_id: string | null;
              }[];
              /** @description Pass as `before` for the next page; null on the last. */
              next_before: number | null;
              /** @description All filtered calls of the period, every page. */
              totals: {
                calls: number;
                cost: {
                  micros: number;
                  /** @example 0.000420 */
                  usd: string;
                };
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/activity.csv': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The filtered activity as CSV (text/csv, newest first, at most 10000 entries) */
    get: {
      parameters: {
        query?: {
          /** @description The last N UTC days, today included. */
          days?: number;
          /** @description Only calls made with this key. */
          key_id?: number;
          kind?: 'call' | 'agent_turn';
          /** @description Requested or resolved model id. */
          model?: string;
          outcome?: 'completed' | 'failed' | 'aborted' | 'expired' | 'open';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The filtered activity, newest first, header line first. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/csv': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/adnetwork/conversion': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Server-side conversion event forwarded to the ad network (deduplicated by event_id, rate-limited per address) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            click_id?: string;
            currency?: string;
            event_at?: string;
            event_id: string;
            event_type: 'PageVisit' | 'ViewContent' | 'Search' | 'AddToCart' | 'AddToWishlist' | 'Purchase' | 'Lead' | 'SignUp';
            item_count?: number;
            value?: number;
          };
        };
      };
      responses: {
        /** @description An event_id already forwarded */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              accepted: true;
              /** @enum {boolean} */
              duplicate: true;
            };
          };
        };
        /** @description Forwarded */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              accepted: true;
              /** @enum {boolean} */
              duplicate: false;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/agent/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Agent defaults, live runtime and the caller’s account state */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              account: {
                /** @description The app-server's account/read answer, null when not running */
                app_server_account: unknown;
                app_server_running: boolean;
                loaded_threads: number;
                pid: number | null;
                restarts: number;
                runtime_key: {
                  createdAt: number;
                  keyId: number;
                  lastFour: string;
                  prefix: string;
                } | null;
              } | null;
              defaults: {
                approval_policy: 'untrusted' | 'on-request' | 'never';
                model: string;
                reasoning_effort: string;
                sandbox: 'danger-full-access' | 'workspace-write' | 'read-only';
                web_search: 'live' | 'cached' | 'disabled';
              };
              runtime: {
                app_server_version: string | null;
                approval_timeout_ms: number;
                idle_stop_ms: number;
                pinned_version: string;
                running_processes: number;
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/object-workspace': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Ensures your private object workspace (idempotent): {created, created_at, projects, repositories} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created: boolean;
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              projects: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                name: string;
                project_id: string;
              }[];
              repositories: {
                bytes: number;
                commit: string;
                files: number;
                format: string;
                repository_name: string;
                source_url: string;
                /** @description ISO 8601 date-time, UTC. */
                stored_at: string;
              }[];
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/object-workspace/projects': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Creates a private project folder → 201 {project_id, name, created_at, body} (name taken: 409) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      /** @description Free-form project object; `name` names the project. */
      requestBody: {
        content: {
          'application/json': {
            /** @description 1-100 letters, digits, space, dot, underscore or hyphen; not only dots; unique per customer (409). */
            name: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              body: unknown;
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              name: string;
              project_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/object-workspace/projects/{project_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Deletes a project marker and its folder (not yours or unknown: 404) → {project_id, deleted} */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          project_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              deleted: true;
              project_id: string;
            };
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/object-workspace/repositories/{repository_name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Fetches a zip or tar.gz repository archive over https and stores it unpacked → 201 {repository_name, source_url, commit, format, files, bytes, stored_at, replaced}
     * @description Only https; every address the host resolves to must be public (or the host allow-listed), the connection goes to the checked address, each redirect is checked again. Refused URLs, unsafe entries (path escapes, links) and corrupt archives: 422; too large, too many entries or too compressed: 413. Nothing is stored on failure.
     */
    post: {
      parameters: {
        query?: {
          /** @description The commit or ref the archive is of; checked against a tarball that names its commit. */
          commit?: string;
          /** @description https URL of a zip or tar.gz archive (e.g. a codeload URL); required. */
          sourceUrl?: string;
        };
        header?: never;
        path: {
          /** @description Folder name: 1-100 letters, digits, dot, underscore or hyphen; not only dots. */
          repository_name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              bytes: number;
              commit: string;
              embedded_commit: unknown;
              files: number;
              final_url: string;
              format: string;
              replaced: boolean;
              repository_name: string;
              source_url: string;
              /** @description ISO 8601 date-time, UTC. */
              stored_at: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/push': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Live service messages (not dismissed, not expired): {data:[{message_key, title, body, level, broadcast, created_at, expires_at}]} */
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                body: string;
                broadcast: boolean;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                expires_at: string | null;
                level: 'info' | 'warning' | 'critical';
                message_key: string;
                title: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/push/{message_key}/dismiss': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Dismisses a service message for you only (not yours: 404) → {message_key, dismissed, dismissed_at} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          message_key: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              dismissed: true;
              /** @description ISO 8601 date-time, UTC. */
              dismissed_at: string;
              message_key: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/push/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Push messages live (text/event-stream): event push {id, message_key, title, body, level, broadcast, created_at, expires_at} with id: the message id, oldest first; resumes after Last-Event-ID (or ?after_id=) from the stored live messages, else new messages only; heartbeat comments */
    get: {
      parameters: {
        query?: {
          after_id?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Push messages live: event `push` with the message and its id, oldest first; heartbeat comments. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/assistant-desktop/sync': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Loads the synchronized assistant history: {version, data, size_bytes, updated_at} */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: Record<string, never>;
              size_bytes: number;
              updated_at: string | null;
              version: number;
            };
          };
        };
      };
    };
    /** Replaces the synchronized assistant history at the version it names (stale: 409 with current_version; too large: 413) */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The whole document (free-form JSON object). */
            data: {
              [key: string]: unknown;
            };
            /** @description The version this write replaces (0 before the first write). */
            version: number;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              size_bytes: number;
              /** @description ISO 8601 date-time, UTC. */
              updated_at: string;
              version: number;
            };
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/email-change/undo': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Undoes an email change from the link mailed to the old address (once, within 7 days); ends every dashboard session */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The token from the link mailed to the old address. */
            token: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              email_change_undone: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/human-check': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A signed ALTCHA proof-of-work challenge {parameters, signature}; its solution is accepted once within 10 minutes */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description An ALTCHA challenge. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              parameters: {
                algorithm: string;
                cost: number;
                data?: {
                  [key: string]: unknown;
                };
                expiresAt?: number;
                keyLength: number;
                keyPrefix: string;
                keySignature?: string;
                memoryCost?: number;
                nonce: string;
                parallelism?: number;
                salt: string;
              };
              signature?: string;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/idp/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Completes identity-provider sign-in: session cookie and 302 to returnTo, or 302 to /login.html?error=<code>; 404 without a provider */
    get: {
      parameters: {
        query?: {
          code?: string;
          error?: string;
          state?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description To returnTo with a session cookie, or to /login.html?error=<code>. */
        302: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/idp/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Starts identity-provider sign-up or sign-in: 302 to the provider (authorization code + PKCE S256)
     * @description planId, amountUsd, referralCode (else the sy_ref cookie), source, countryCode, countryName, deviceFingerprint and mobileNumber are recorded for a new account (shown to the operator); planId or amountUsd lead the new account to the checkout after sign-up. website must stay empty.
     */
    get: {
      parameters: {
        query?: {
          /** @description A number of US dollars (number or numeric string). */
          amountUsd?: string;
          countryCode?: string;
          countryName?: string;
          deviceFingerprint?: string;
          /** @description The solved ALTCHA challenge (the widget payload) from GET /api/v1/auth/human-check. */
          humanCheck?: string;
          mobileNumber?: string;
          planId?: string;
          referralCode?: string;
          returnTo?: string;
          source?: string;
          /** @description Leave empty. */
          website?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description To the identity provider. */
        302: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** CLI login by email or username; issues a wallet-linked key */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            email?: string;
            /** @description Email or username. */
            login?: string;
            password: string;
            username?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description This service API. */
              api_base_url: string;
              api_key: string;
              api_key_id: number;
              /** @description The model API (OpenAI and Anthropic compatible). */
              base_url: string;
              customer_id: number;
              default_model: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Ends the calling dashboard session and clears its cookies */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              signed_out: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/operator-session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Operator console sign-in: the operator token or a managed operator key → an 8-hour operator session
     * @description Answers 201 {operator: true, key_id, csrf_token, csrf_header, expires_at} and sets sy_operator (HttpOnly, Path=/api/admin, SameSite=Strict) and sy_operator_csrf. The session is a new managed operator key that expires with it; the cookie is accepted only on /api/admin routes, state changes need the x-csrf-token header. Anything but an operator credential → 401.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The static operator token or a managed operator key. */
            token: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {string} */
              csrf_header: 'x-csrf-token';
              csrf_token: string;
              /** @description ISO 8601 date-time, UTC. */
              expires_at: string;
              key_id: number;
              /** @enum {boolean} */
              operator: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/options': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What the sign-in page offers: identity-provider sign-in, and where a human check is always required */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              human_check: {
                idp: boolean;
                /** @description Claiming a promotion needs a solved challenge. */
                promotion: boolean;
                register: boolean;
                /** @description Asked after repeated failures (422 on humanCheck). */
                web_login: boolean;
              };
              /** @description GET /api/v1/auth/idp/start is configured. */
              identity_provider: boolean;
              /** @description Who may create an account: anyone, only with an invite link, or nobody (the operator creates accounts). */
              registration: 'open' | 'invite' | 'closed';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/password-reset/confirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sets a new password from a reset link; ends every dashboard session (API keys keep working) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The new password. */
            password: string;
            /** @description The token from the emailed link. */
            token: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              password_reset: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/password-reset/request': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Emails a single-use reset link valid 30 minutes; the same answer for known and unknown emails */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            email: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              message: string;
              /** @enum {boolean} */
              requested: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/reauthenticate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Confirms the password (or a current authenticator code) for the calling dashboard session
     * @description A session may mint or change credentials only within accounts.recentAuthMinutes of a checked password or code; a session opened from an SSO link starts without one.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A current authenticator-app code (when 2FA is on). */
            code?: string;
            password?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              reauthenticated: true;
              recent_for_seconds: number;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/sso': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Opens a dashboard session from a signed single-use link and redirects (302) to returnTo (own paths only) */
    get: {
      parameters: {
        query?: {
          returnTo?: string;
          token?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description To returnTo with a session cookie, or to the sign-in page when the link is not valid. */
        302: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/verify-email': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Opens the emailed verification link (once, within 24 hours): 302 to the dashboard, or to the sign-in page with an error */
    get: {
      parameters: {
        query: {
          token: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description To the dashboard, or to the sign-in page when the link is not valid. */
        302: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/web-login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Dashboard sign-in: sets the session cookie, or answers with a 2FA challenge when 2FA is on
     * @description Body: email, username or login (exactly one) + password; humanCheck (a solved challenge) after repeated failures of the account (when configured) or of the address. Answer without 2FA: {two_factor_required:false, customer_id, csrf_token, csrf_header, expires_at} and the cookies sy_session (HttpOnly) and sy_csrf. With 2FA: {two_factor_required:true, challenge, expires_at}; complete with POST /api/v1/auth/web-login/2fa.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            email?: string;
            /** @description The solved ALTCHA challenge (the widget payload) from GET /api/v1/auth/human-check. */
            humanCheck?: string;
            /** @description Email or username. */
            login?: string;
            password: string;
            username?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json':
              | {
                  /** @enum {string} */
                  csrf_header: 'x-csrf-token';
                  csrf_token: string;
                  customer_id: number;
                  /** @description ISO 8601 date-time, UTC. */
                  expires_at: string;
                  /** @enum {boolean} */
                  two_factor_required: false;
                }
              | {
                  challenge: string;
                  /** @description ISO 8601 date-time, UTC. */
                  expires_at: string;
                  /** @enum {boolean} */
                  two_factor_required: true;
                };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/auth/web-login/2fa': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Second web-login step: the challenge and an authenticator-app code; sets the session cookie */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The challenge from the first web-login step. */
            challenge: string;
            /** @description The 6-digit authenticator-app code. */
            code: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {string} */
              csrf_header: 'x-csrf-token';
              csrf_token: string;
              customer_id: number;
              /** @description ISO 8601 date-time, UTC. */
              expires_at: string;
              /** @enum {boolean} */
              two_factor_required: false;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/billing/currency-estimates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Local-currency estimates of the wallet and the packs, led by your display currency (purchase preferences); checkout stays USD */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              as_of: string | null;
              available: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              /** @enum {string} */
              checkout_currency: 'USD';
              display: {
                available_estimate: number;
                currency: string;
                per_usd: number;
                requested: string;
              };
              /** @enum {boolean} */
              estimate: true;
              estimates: {
                available_estimate: number;
                currency: string;
                per_usd: number;
              }[];
              note: string;
              packs: {
                pack_id: string;
                price: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                price_estimate: number;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/billing/token-usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Token transactions (billed calls) and daily spend */
    get: {
      parameters: {
        query?: {
          days?: number;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              daily_by_model: {
                /** @description UTC day, YYYY-MM-DD. */
                date: string;
                input_tokens: number;
                model: string;
                output_tokens: number;
                requests: number;
                spend: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              }[];
              daily_spend: {
                /** @description UTC day, YYYY-MM-DD. */
                date: string;
                input_tokens: number;
                output_tokens: number;
                requests: number;
                spend: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              }[];
              transactions: {
                agent_turn: {
                  thread_id: string;
                  turn_id: string | null;
                } | null;
                cache_write_1h_tokens: number | null;
                cache_write_tokens: number | null;
                cached_input_tokens: number | null;
                client_request_id: string | null;
                cost: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                covered_by_plan: string | null;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                dropped_fields: string[];
                dropped_tools: string[];
                hold: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                id: number;
                input_tokens: number | null;
                key_id: number | null;
                model: string;
                operation: string;
                outcome: string | null;
                output_tokens: number | null;
                rate_card: string;
                request_id: string;
                requested_model: string;
                status: string;
                usage_source: string | null;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/card/webhook': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Card-processor payment events (signed: header Stripe-Signature t=…,v1=…) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              duplicate: boolean;
              event_id: string;
              /** @enum {boolean} */
              received: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/cash-wallet/card/checkout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Card checkout session for a credit pack (cash wallet; default: your saved default pack); answers the hosted checkout URL */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            discount_code?: string;
            /** @description Absent: your default pack (purchase preferences). */
            pack_id?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              checkout_url: string;
              payment: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              };
              session_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/cash-wallet/card/confirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Confirm a paid card session (credits the cash wallet once) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            session_id: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description Whether this call credited the wallet */
              credited: boolean;
              payment: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/cash-wallet/crypto/checkout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Crypto invoice for a pack (USD price, chosen pay currency, optional bonus code; cash wallet); pack and coin default to your purchase preferences */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A top-up bonus code or your mailed personal code: extra credit when paid. */
            discount_code?: string;
            /** @description Absent: your default pack (purchase preferences). */
            pack_id?: string;
            /** @description Absent: your saved pay currency (purchase preferences). */
            pay_currency?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              actually_paid: string | null;
              amount: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              clawed_back: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              credit: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              credited_at: string | null;
              /** @enum {string} */
              currency: 'USD';
              debt: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              discount_code: string | null;
              invoice_url: string | null;
              method: 'card' | 'crypto' | 'cash' | 'top_up';
              network: string | null;
              order_id: string;
              pack_id: string | null;
              pay_amount: string | null;
              pay_currency: string | null;
              payment_id: string;
              processor_status: string | null;
              receipt_available: boolean;
              refunded: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
              wallet: 'token' | 'cash';
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/cash-wallet/token-purchase': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Buy a token-wallet package from the cash wallet (402 when cash is short; Idempotency-Key required) */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            pack_id: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              credited: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              paid: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              purchase: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/cash-wallet/unlimited-purchase': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Buy an Unlimited Coding plan from the cash wallet; it covers calls from that moment (402 when cash is short; Idempotency-Key required) */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            plan_id: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description ISO 8601 date-time, UTC. */
              ends_at: string;
              paid: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              plan: string;
              purchase: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              };
              /** @description ISO 8601 date-time, UTC. */
              starts_at: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/chatbot/idp/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Completes chat linking: {linked: true, chat_id}; the chat is told. State single use (replayed, expired or unknown: 400) */
    get: {
      parameters: {
        query?: {
          code?: string;
          error?: string;
          state?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              chat_id: string;
              /** @enum {boolean} */
              linked: true;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/chatbot/idp/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Starts linking a chat to your account: 302 to the identity provider (the signed link the bot sent: chat_id, expires, sig)
     * @description A link not signed for this chat: 400 {detail, code: link_invalid}; expired: 400 link_expired; no provider configured: 404.
     */
    get: {
      parameters: {
        query: {
          chat_id: string;
          expires: number;
          sig: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Redirect to the identity provider (Location) */
        302: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/chatbot/link-code': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A one-time code (10 minutes, used once) that links a bot chat to your account: send /link <code> to the bot */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              code: string;
              /** @description /link <code> */
              command: string;
              /** @description ISO 8601 date-time, UTC. */
              expires_at: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/chatbot/webhook': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Inbound chat-bot update (header X-Telegram-Bot-Api-Secret-Token = configured secret; else 401): /balance, /usage, /alerts for linked chats; /start, /help, /link, /unlink
     * @description Answers go out as Bot API sendMessage calls when a bot token is configured ({ok, delivered}); otherwise the answer is this response body ({method: "sendMessage", chat_id, text}). A redelivered update_id is acknowledged and not answered again.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      /** @description A Bot API Update; only message.chat.id and message.text are read. */
      requestBody: {
        content: {
          'application/json': {
            message?: {
              chat?: {
                id?: number | string;
              } & {
                [key: string]: unknown;
              };
              text?: string;
            } & {
              [key: string]: unknown;
            };
            update_id: number;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json':
              | {
                  chat_id: string;
                  /** @enum {string} */
                  method: 'sendMessage';
                  text: string;
                }
              | {
                  delivered: boolean;
                  duplicate: boolean;
                  /** @enum {boolean} */
                  ok: true;
                };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/cli/version': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** cli release metadata; with current/currentVersion, whether an update is available */
    get: {
      parameters: {
        query?: {
          /** @description A semantic version such as 1.2.3 or 1.3.0-beta.2 */
          current?: string;
          /** @description A semantic version such as 1.2.3 or 1.3.0-beta.2 */
          currentVersion?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              current_version: string | null;
              download_url: string | null;
              latest_version: string;
              minimum_version: string | null;
              notes: string | null;
              product: 'cli' | 'launcher-a' | 'launcher-b';
              published_at: string | null;
              update_available: boolean | null;
              update_required: boolean | null;
              version: string;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/crypto/ipn': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Crypto-processor payment callbacks (header x-nowpayments-sig: HMAC-SHA512 of the key-sorted JSON body) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              duplicate: boolean;
              /** @enum {boolean} */
              received: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/customer-engagement': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Notification preferences: {email:{productUpdates,billing,keyAlerts,inboxDigest}, inApp:{keyAlerts,announcements}} */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              email: {
                billing: boolean;
                inboxDigest: boolean;
                keyAlerts: boolean;
                productUpdates: boolean;
              };
              inApp: {
                announcements: boolean;
                keyAlerts: boolean;
              };
            };
          };
        };
      };
    };
    /** Saves notification preferences (fields left out take their defaults) */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            email?: {
              billing?: boolean;
              inboxDigest?: boolean;
              keyAlerts?: boolean;
              productUpdates?: boolean;
            };
            inApp?: {
              announcements?: boolean;
              keyAlerts?: boolean;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              email: {
                billing: boolean;
                inboxDigest: boolean;
                keyAlerts: boolean;
                productUpdates: boolean;
              };
              inApp: {
                announcements: boolean;
                keyAlerts: boolean;
              };
            };
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/customer-engagement/unsubscribe': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Opened from a mail: checks the signed token and answers an HTML page whose button POSTs the unsubscribe; changes nothing (mail scanners prefetch links); a bad token → 422 */
    get: {
      parameters: {
        query: {
          token: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A page whose button confirms the unsubscribe. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
          };
        };
      };
    };
    put?: never;
    /** One-click unsubscribe (RFC 8058, the List-Unsubscribe-Post of engagement mail, and the GET page's button): turns the preference the token names off → {unsubscribed: true, preference} (an HTML page when the caller accepts text/html) */
    post: {
      parameters: {
        query: {
          token: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description JSON for a mail client’s one-click; an HTML page when the caller accepts text/html. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description e.g. email.productUpdates */
              preference: string;
              /** @enum {boolean} */
              unsubscribed: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/customer/register': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create an account; returns its System Token once and mails a link that verifies the email (needed for free credit)
     * @description accounts.registration decides who may: open (anyone), invite (only with the invite token of the invited email; 403 without one, 422 for a bad one) or closed (403). A solved human check (humanCheck) is required by default without an invite; sign-ups per network (/24, /64) are limited per day (429). referralCode (or the sy_ref cookie left by /r/{code}) attributes the account to the referring customer.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            email: string;
            /** @description The solved ALTCHA challenge from GET /api/v1/auth/human-check (required by default; not with an invite). */
            humanCheck?: string;
            /** @description The token of an invite link (`/login.html#invite=…`); required when accounts.registration is invite. */
            invite?: string;
            name?: string;
            password: string;
            /** @description The referral code the customer came with; absent: the one the share link /r/{code} kept (cookie). Unknown codes change nothing. */
            referralCode?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description This service API. */
              api_base_url: string;
              /** @description The System Token, shown once. */
              api_key: string;
              api_key_id: number;
              /** @description The model API (OpenAI and Anthropic compatible). */
              base_url: string;
              customer: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                email: string;
                id: number;
                name: string | null;
                username: string;
              };
              default_model: string;
              /** @enum {boolean} */
              email_verified: false;
              /** @description Shown once. */
              username_token: string;
              username_token_id: number;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/daily-checkin': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Daily check-in status: streak, next reward, next claim time (UTC days) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              claimed_today: boolean;
              /** @description UTC day, YYYY-MM-DD */
              day: string;
              enabled: boolean;
              /** @description ISO 8601 date-time, UTC. */
              next_claim_at: string;
              next_reward: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              rewards: {
                day: number;
                reward: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              }[];
              streak: number;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/daily-checkin/claim': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Claim today's check-in reward (once per UTC day; 409 when already claimed; needs a verified email and humanCheck) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The solved ALTCHA challenge from GET /api/v1/auth/human-check. */
            humanCheck?: string;
          } | null;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              claimed: true;
              day: string;
              reward: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              streak: number;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/bootstrap': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Desktop chat start: {conversations, models, default_model, free_quota:{daily_messages, used, left, resets_at, models}} */
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              conversations: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                model: string;
                system_prompt: string | null;
                title: string;
                /** @description ISO 8601 date-time, UTC. */
                updated_at: string;
              }[];
              default_model: string;
              free_quota: {
                daily_messages: number;
                left: number;
                models: string[];
                /** @description ISO 8601 date-time, UTC. */
                resets_at: string;
                used: number;
              };
              models: {
                alias: boolean;
                display_name: string;
                /** @description Covered by the free daily quota */
                free: boolean;
                id: string;
                pricing: Record<string, never> | null;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/conversations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Your conversations, most recently updated first: {data:[{id, title, model, system_prompt, created_at, updated_at}]} */
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                model: string;
                system_prompt: string | null;
                title: string;
                /** @description ISO 8601 date-time, UTC. */
                updated_at: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    /** Creates a conversation → 201 {id, title, model, system_prompt, created_at, updated_at} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A model id or alias of the model catalog (unknown: 422); default the configured default model. */
            model?: string;
            system_prompt?: string;
            /** @description Blank or absent: "New chat". */
            title?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              id: number;
              model: string;
              system_prompt: string | null;
              title: string;
              /** @description ISO 8601 date-time, UTC. */
              updated_at: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/conversations/{conversation_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Deletes your conversation and its messages → 204 (not yours: 404) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          conversation_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description No content */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/conversations/{conversation_id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Messages of your conversation, oldest first: {conversation, data:[{id, role, content, model, input_tokens, output_tokens, created_at, research}]}; research is null except on the reply of a research message: {status (pending | running | completed | failed), title, sections, sources, calls, error, created_at, completed_at} */
    get: {
      parameters: {
        query?: {
          after_id?: number;
          limit?: number;
        };
        header?: never;
        path: {
          conversation_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              conversation: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                model: string;
                system_prompt: string | null;
                title: string;
                /** @description ISO 8601 date-time, UTC. */
                updated_at: string;
              };
              data: {
                content: string;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                input_tokens: number | null;
                model: string | null;
                output_tokens: number | null;
                research: {
                  calls: number;
                  completed_at: string | null;
                  /** @description ISO 8601 date-time, UTC. */
                  created_at: string;
                  error: string | null;
                  sections: string[];
                  source_checks?: {
                    url: string;
                    verified: boolean;
                  }[];
                  sources: string[];
                  status: 'pending' | 'running' | 'completed' | 'failed';
                  title: string | null;
                } | null;
                /** @description user or assistant */
                role: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    /** Sends a prompt with the saved context through the gateway: the free daily quota first (free models), then the wallet; 402 when both are out → 201 {messages:[prompt, reply], free, free_quota}; stream: true → SSE delta/done/error; mode research → 202 {messages:[prompt, reply with research.status pending]} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          conversation_id: number;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The prompt; sent with the conversation's saved context. */
            content: string;
            /** @description research: a multi-step analysis (plan, then up to 6 sections, each a billed model call) run in the background; answers 202 with the prompt and the pending reply. */
            mode?: 'chat' | 'research';
            /** @description true: the reply as server-sent events (delta, done, error). Not with mode research. */
            stream?: boolean;
          };
        };
      };
      responses: {
        /** @description stream: true — events delta {text}, done {messages, free}, error {code, message} */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              free: boolean;
              free_quota: {
                daily_messages: number;
                left: number;
                models: string[];
                /** @description ISO 8601 date-time, UTC. */
                resets_at: string;
                used: number;
              };
              /** @description The prompt and the reply */
              messages: {
                content: string;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                input_tokens: number | null;
                model: string | null;
                output_tokens: number | null;
                research: {
                  calls: number;
                  completed_at: string | null;
                  /** @description ISO 8601 date-time, UTC. */
                  created_at: string;
                  error: string | null;
                  sections: string[];
                  source_checks?: {
                    url: string;
                    verified: boolean;
                  }[];
                  sources: string[];
                  status: 'pending' | 'running' | 'completed' | 'failed';
                  title: string | null;
                } | null;
                /** @description user or assistant */
                role: string;
              }[];
            };
          };
        };
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description mode research: the prompt and the pending reply */
              messages: {
                content: string;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                input_tokens: number | null;
                model: string | null;
                output_tokens: number | null;
                research: {
                  calls: number;
                  completed_at: string | null;
                  /** @description ISO 8601 date-time, UTC. */
                  created_at: string;
                  error: string | null;
                  sections: string[];
                  source_checks?: {
                    url: string;
                    verified: boolean;
                  }[];
                  sources: string[];
                  status: 'pending' | 'running' | 'completed' | 'failed';
                  title: string | null;
                } | null;
                /** @description user or assistant */
                role: string;
              }[];
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/messages/{message_id}/research.pdf': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** PDF of your completed research analysis (title, sections, cited sources); message_id is the reply message; 404 until it completes or when not yours */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          message_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The research report (application/pdf, inline) */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/pdf': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/shoutbox/bootstrap': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Shared shoutbox: {profile, messages (newest first), limits} */
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              limits: {
                max_message_chars: number;
                messages_per_minute: number;
                username_pattern: string;
              };
              messages: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                mine: boolean;
                text: string;
                username: string;
              }[];
              profile: {
                username: string;
              } | null;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/shoutbox/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Live shoutbox (text/event-stream): event message {id, username, text, created_at, mine} with id: the message id, oldest first; resumes after Last-Event-ID (or ?after_id=) from the stored messages, else new messages only; heartbeat comments */
    get: {
      parameters: {
        query?: {
          after_id?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description event message {id, username, text, created_at, mine}, `id:` the message id; heartbeat comments */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/shoutbox/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Shoutbox messages, newest first: {data:[{id, username, text, created_at, mine}]} */
    get: {
      parameters: {
        query?: {
          after_id?: number;
          before_id?: number;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                mine: boolean;
                text: string;
                username: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    /** Posts a shoutbox message (needs a username: 412; rate-limited: 429) → 201 */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Plain text; at most desktop.shoutbox.maxMessageChars characters after trimming. */
            text: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              id: number;
              mine: boolean;
              text: string;
              username: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop-chat/shoutbox/profile': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sets your shoutbox username (taken: 409) → {username} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Unique ignoring case (409 when taken). */
            username: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              username: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop/bootstrap': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Verifies the token; account, wallet, usage of the last days, inbox and push messages, coder {projects, slots} (as GET /api/v1/desktop/coder/projects), client releases */
    get: {
      parameters: {
        query?: {
          days?: number;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              coder: {
                projects: {
                  /** @description ISO 8601 date-time, UTC. */
                  created_at: string;
                  database:
                    | (
                        | {
                            /** @enum {string} */
                            engine: 'sqlite';
                            path: string;
                            url: string;
                          }
                        | {
                            database: string | null;
                            /** @enum {string} */
                            engine: 'postgres';
                            host: string;
                            password: string | null;
                            port: number;
                            url: string;
                            user: string | null;
                          }
                      )
                    | null;
                  /** @description ISO 8601 date-time, UTC. */
                  last_opened_at: string;
                  name: string;
                  project_id: string | null;
                  status: 'creating' | 'active' | 'deleting';
                }[];
                slots: {
                  available: number;
                  free: number;
                  max: number;
                  price: {
                    /** @description Micro-USD (1 USD = 1 000 000). */
                    micros: number;
                    /** @description The same amount in USD, 6 decimals. */
                    usd: string;
                  };
                  purchased: number;
                  total: number;
                  used: number;
                };
              };
              customer: Record<string, never>;
              inbox: {
                messages: Record<string, never>[];
                unread_count: number;
              };
              key: {
                id: number;
                kind: string;
              };
              push: {
                messages: {
                  body: string;
                  broadcast: boolean;
                  /** @description ISO 8601 date-time, UTC. */
                  created_at: string;
                  expires_at: string | null;
                  level: 'info' | 'warning' | 'critical';
                  message_key: string;
                  title: string;
                }[];
              };
              /** @description Per client product; null when none is configured */
              releases: {
                [key: string]: Record<string, never> | null;
              };
              /** @description ISO 8601 date-time, UTC. */
              server_time: string;
              token: {
                key_id: number;
                kind: string;
                /** @enum {boolean} */
                valid: true;
              };
              usage: {
                daily: Record<string, never>[];
                days: number;
                totals: {
                  input_tokens: number;
                  output_tokens: number;
                  requests: number;
                  spend: {
                    /** @description Micro-USD (1 USD = 1 000 000). */
                    micros: number;
                    /** @description The same amount in USD, 6 decimals. */
                    usd: string;
                  };
                };
                transactions: Record<string, never>[];
              };
              wallet: {
                available: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                balance: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                cash_balance: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @enum {string} */
                currency: 'USD';
                holds: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                plan: string | null;
                plan_ends_at: string | null;
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop/bug-report': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sends a bug report {text, app_version, os, log_excerpt?} → 201 {id, created_at} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            app_version: string;
            log_excerpt?: string;
            os: string;
            /** @description What happened (text plus log excerpt at most desktop.bugReportMaxBytes bytes; larger: 413). */
            text: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              id: number;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop/coder/projects': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Your coder projects {data:[{name, status, project_id, database, created_at, last_opened_at}], slots:{used, free, purchased, total, available, max, price}}; database carries the connection details */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                database:
                  | (
                      | {
                          /** @enum {string} */
                          engine: 'sqlite';
                          path: string;
                          url: string;
                        }
                      | {
                          database: string | null;
                          /** @enum {string} */
                          engine: 'postgres';
                          host: string;
                          password: string | null;
                          port: number;
                          url: string;
                          user: string | null;
                        }
                    )
                  | null;
                /** @description ISO 8601 date-time, UTC. */
                last_opened_at: string;
                name: string;
                project_id: string | null;
                status: 'creating' | 'active' | 'deleting';
              }[];
              slots: {
                available: number;
                free: number;
                max: number;
                price: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                purchased: number;
                total: number;
                used: number;
              };
            };
          };
        };
      };
    };
    put?: never;
    /** Creates (201) or resumes (200) the coder project of this name: a managed agent project and a managed database; every slot in use → 409 */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Letters, digits, ".", "_" or "-", starting with a letter or digit; unique per customer ignoring case. */
            name: string;
          };
        };
      };
      responses: {
        /** @description An existing project, resumed */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              created: false;
              project: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                database:
                  | (
                      | {
                          /** @enum {string} */
                          engine: 'sqlite';
                          path: string;
                          url: string;
                        }
                      | {
                          database: string | null;
                          /** @enum {string} */
                          engine: 'postgres';
                          host: string;
                          password: string | null;
                          port: number;
                          url: string;
                          user: string | null;
                        }
                    )
                  | null;
                /** @description ISO 8601 date-time, UTC. */
                last_opened_at: string;
                name: string;
                project_id: string | null;
                status: 'creating' | 'active' | 'deleting';
              };
            };
          };
        };
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              created: true;
              project: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                database:
                  | (
                      | {
                          /** @enum {string} */
                          engine: 'sqlite';
                          path: string;
                          url: string;
                        }
                      | {
                          database: string | null;
                          /** @enum {string} */
                          engine: 'postgres';
                          host: string;
                          password: string | null;
                          port: number;
                          url: string;
                          user: string | null;
                        }
                    )
                  | null;
                /** @description ISO 8601 date-time, UTC. */
                last_opened_at: string;
                name: string;
                project_id: string | null;
                status: 'creating' | 'active' | 'deleting';
              };
              slots: {
                available: number;
                free: number;
                max: number;
                price: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                purchased: number;
                total: number;
                used: number;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop/coder/projects/{project_name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Deletes your coder project: drops its database and role, removes its workspace → 204 (not yours: 404; a turn running: 409) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          project_name: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Removed */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop/coder/projects/purchase-slot': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Buys one extra coder project slot from token-wallet credit at desktop.coder.slotPriceMicros (Idempotency-Key required; 402 when short; 409 at desktop.coder.maxSlots) */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              purchase: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                paid: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              };
              slots: {
                available: number;
                free: number;
                max: number;
                price: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                purchased: number;
                total: number;
                used: number;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop/coding-session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Loads the coding conversation history: {version, data, size_bytes, updated_at} */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: Record<string, never>;
              size_bytes: number;
              updated_at: string | null;
              version: number;
            };
          };
        };
      };
    };
    /** Replaces the coding conversation history at the version it names (stale: 409 with current_version; too large: 413) */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The whole document (free-form JSON object). */
            data: {
              [key: string]: unknown;
            };
            /** @description The version this write replaces (0 before the first write). */
            version: number;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              size_bytes: number;
              /** @description ISO 8601 date-time, UTC. */
              updated_at: string;
              version: number;
            };
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/desktop/presence': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Heartbeat {app_version?, os?} → {online, last_seen_at, online_until, ttl_seconds} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            app_version?: string;
            os?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description ISO 8601 date-time, UTC. */
              last_seen_at: string;
              /** @enum {boolean} */
              online: true;
              /** @description ISO 8601 date-time, UTC. */
              online_until: string;
              ttl_seconds: number;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/launcher-a/version': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** launcher-a release metadata; with current/currentVersion, whether an update is available */
    get: {
      parameters: {
        query?: {
          /** @description A semantic version such as 1.2.3 or 1.3.0-beta.2 */
          current?: string;
          /** @description A semantic version such as 1.2.3 or 1.3.0-beta.2 */
          currentVersion?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              current_version: string | null;
              download_url: string | null;
              latest_version: string;
              minimum_version: string | null;
              notes: string | null;
              product: 'cli' | 'launcher-a' | 'launcher-b';
              published_at: string | null;
              update_available: boolean | null;
              update_required: boolean | null;
              version: string;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/launcher-b/version': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** launcher-b release metadata; with current/currentVersion, whether an update is available */
    get: {
      parameters: {
        query?: {
          /** @description A semantic version such as 1.2.3 or 1.3.0-beta.2 */
          current?: string;
          /** @description A semantic version such as 1.2.3 or 1.3.0-beta.2 */
          currentVersion?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              current_version: string | null;
              download_url: string | null;
              latest_version: string;
              minimum_version: string | null;
              notes: string | null;
              product: 'cli' | 'launcher-a' | 'launcher-b';
              published_at: string | null;
              update_available: boolean | null;
              update_required: boolean | null;
              version: string;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/marketplace/register': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Create a marketplace buyer account with its token-wallet credit (licence usable once) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** Format: email */
            email: string;
            license_key: string;
            name?: string;
            password?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              credit: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              customer_id: number;
              email: string;
              note: string;
              /** @description Shown once */
              system_token: string;
              username: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Account, wallet and CLI configuration; with the dashboard profile (edge region and its base URL, names, show_name_dialog, two_factor_enabled, session) and the features this service offers (payment methods, promotions, the operator contact) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description This service API. */
              api_base_url: string;
              /** @description The model API (OpenAI and Anthropic compatible). */
              base_url: string;
              customer: {
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                email: string;
                id: number;
                name: string | null;
                username: string;
                vip: boolean;
              };
              default_model: string;
              email_verified: boolean;
              features: {
                auto_top_up: boolean;
                billing_url: string;
                bonus_code_mail: boolean;
                card_payments: boolean;
                crypto_payments: boolean;
                operator_contact: string | null;
                promotions: {
                  checkin: boolean;
                  raffle: boolean;
                  referral: boolean;
                  share_credit: boolean;
                  spin_wheel: boolean;
                };
                unlimited_plans: boolean;
              };
              /** @description The credential of this call. */
              key: {
                id: number;
                kind: 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';
              };
              prices: {
                model: string;
              }[];
              profile: {
                edge_region: {
                  api_base_url: string;
                  id: string;
                  name: string;
                } | null;
                first_name: string | null;
                show_name_dialog: boolean;
                surname: string | null;
              };
              /** @description The call came from a dashboard session (not a key). */
              session: boolean;
              two_factor_enabled: boolean;
              wallet: {
                available: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                held: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                plan: string | null;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/2fa/disable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Turns 2FA off with a current code or the password */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A 6-digit authenticator-app code. */
            code?: string;
            password?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              enabled: false;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/2fa/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Confirms 2FA with the password and a current code; web login then asks for a code */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A 6-digit authenticator-app code. */
            code: string;
            /** @description The account password. */
            password: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              enabled: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/2fa/setup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Starts authenticator-app 2FA: {secret, otpauth_uri, enabled:false}; active after /enable */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              enabled: false;
              otpauth_uri: string;
              secret: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/api-key-alerts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Key alerts (spending limit 80 %/reached, expiring/expired, replaced/revoked, new network), newest first */
    get: {
      parameters: {
        query?: {
          include_acknowledged?: boolean;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                acknowledged: boolean;
                acknowledged_at: string | null;
                /** @description e.g. spending_limit_80, key_expiring, new_network, password_changed. */
                cause: string;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                details: {
                  [key: string]: unknown;
                };
                id: number;
                key_id: number | null;
              }[];
              unacknowledged_count: number;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/api-key-alerts/{event_id}/acknowledge': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Acknowledges one of your alerts (others: 404) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          event_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              acknowledged: true;
              id: number;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the System Token, username token and User API Keys (never secrets) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "data": [
             *         {
             *           "id": 12,
             *           "kind": "user_api_key",
             *           "system": false,
             *           "name": "laptop",
             *           "prefix": "sy_live_",
             *           "last_four": "x9Qa",
             *           "policy": {
             *             "allowed_surfaces": null,
             *             "allowed_models": null,
             *             "spending_limit_micros": null,
             *             "spending_period": null,
             *             "rate_limit_plan": null
             *           },
             *           "created_at": "2026-11-27T10:00:00.000Z",
             *           "expires_at": null,
             *           "last_used_at": null
             *         }
             *       ]
             *     }
             */
            'application/json': {
              data: {
                created_at: string | null;
                expires_at: string | null;
                id: number;
                kind: 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';
                last_four: string;
                last_used_at: string | null;
                name: string | null;
                policy: {
                  allowed_models: string[] | null;
                  allowed_surfaces: string[] | null;
                  rate_limit_plan: string | null;
                  spending_limit_micros: number | null;
                  spending_period: string | null;
                };
                prefix: string;
                /** @description Issued by the service (System Token, username token), not by the customer. */
                system: boolean;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    /** Create a User API Key; the secret is returned once */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          /**
           * @example {
           *       "name": "laptop"
           *     }
           */
          'application/json': {
            /** @description Model ids or aliases the key may use; absent = all. */
            allowed_models?: string[];
            /** @description Surfaces the key may use; absent = every surface except rpc. */
            allowed_surfaces?: ('gateway' | 'projects' | 'account' | 'rpc')[];
            /**
             * Format: date-time
             * @description ISO 8601 date-time; must be in the future.
             */
            expires_at?: string;
            name?: string;
            rate_limit_plan?: string;
            /** @description Integer micro-USD. */
            spending_limit_micros?: number;
            /**
             * @description Period of the spending limit; absent = lifetime of the key.
             * @enum {string}
             */
            spending_period?: 'day' | 'week' | 'month';
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "id": 12,
             *       "kind": "user_api_key",
             *       "system": false,
             *       "name": "laptop",
             *       "prefix": "sy_live_",
             *       "last_four": "x9Qa",
             *       "policy": {
             *         "allowed_surfaces": null,
             *         "allowed_models": null,
             *         "spending_limit_micros": null,
             *         "spending_period": null,
             *         "rate_limit_plan": null
             *       },
             *       "created_at": "2026-11-27T10:00:00.000Z",
             *       "expires_at": null,
             *       "last_used_at": null,
             *       "key": "sy_live_…the secret, shown once…"
             *     }
             */
            'application/json': {
              created_at: string | null;
              expires_at: string | null;
              id: number;
              /** @description The secret, shown once. */
              key: string;
              kind: 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';
              last_four: string;
              last_used_at: string | null;
              name: string | null;
              policy: {
                allowed_models: string[] | null;
                allowed_surfaces: string[] | null;
                rate_limit_plan: string | null;
                spending_limit_micros: number | null;
                spending_period: string | null;
              };
              prefix: string;
              /** @description Issued by the service (System Token, username token), not by the customer. */
              system: boolean;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/api-keys/{key_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Revoke one of your keys */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          key_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: string | null;
              expires_at: string | null;
              id: number;
              kind: 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';
              last_four: string;
              last_used_at: string | null;
              name: string | null;
              policy: {
                allowed_models: string[] | null;
                allowed_surfaces: string[] | null;
                rate_limit_plan: string | null;
                spending_limit_micros: number | null;
                spending_period: string | null;
              };
              prefix: string;
              /** @enum {boolean} */
              revoked: true;
              /** @description Issued by the service (System Token, username token), not by the customer. */
              system: boolean;
            };
          };
        };
      };
    };
    options?: never;
    head?: never;
    /** Change a User API Key policy */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          key_id: number;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Model ids or aliases the key may use; absent = all. */
            allowed_models?: string[] | null;
            /** @description Surfaces the key may use; absent = every surface except rpc. */
            allowed_surfaces?: ('gateway' | 'projects' | 'account' | 'rpc')[] | null;
            /**
             * Format: date-time
             * @description ISO 8601 date-time; must be in the future.
             */
            expires_at?: string | null;
            name?: string | null;
            rate_limit_plan?: string | null;
            /** @description Integer micro-USD. */
            spending_limit_micros?: number | null;
            /**
             * @description Period of the spending limit; absent = lifetime of the key.
             * @enum {string|null}
             */
            spending_period?: 'day' | 'week' | 'month' | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: string | null;
              expires_at: string | null;
              id: number;
              kind: 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';
              last_four: string;
              last_used_at: string | null;
              name: string | null;
              policy: {
                allowed_models: string[] | null;
                allowed_surfaces: string[] | null;
                rate_limit_plan: string | null;
                spending_limit_micros: number | null;
                spending_period: string | null;
              };
              prefix: string;
              /** @description Issued by the service (System Token, username token), not by the customer. */
              system: boolean;
            };
          };
        };
      };
    };
    trace?: never;
  };
  '/api/v1/me/api-keys/{key_id}/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Non-billable health check of a key: key, wallet and destination reachability */
    get: {
      parameters: {
        query?: {
          model?: string;
        };
        header?: never;
        path: {
          key_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              billable: false;
              destination: {
                error?: string;
                latency_ms: number;
                provider: string | null;
                reachable: boolean;
                status: number | null;
              } | null;
              key: {
                active: boolean;
                expires_at: string | null;
                id: number;
                revoked: boolean;
              };
              model: {
                allowed: boolean;
                requested: string | null;
                resolved: string | null;
              };
              /** @description Key active, model allowed, wallet can pay and destination reachable. */
              ok: boolean;
              wallet: {
                available: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                ok: boolean;
                plan: string | null;
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/api-keys/{key_id}/replace': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Revoke a key and issue a new secret with the same policy */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          key_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: string | null;
              expires_at: string | null;
              id: number;
              /** @description The new secret, shown once. */
              key: string;
              kind: 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';
              last_four: string;
              last_used_at: string | null;
              name: string | null;
              policy: {
                allowed_models: string[] | null;
                allowed_surfaces: string[] | null;
                rate_limit_plan: string | null;
                spending_limit_micros: number | null;
                spending_period: string | null;
              };
              prefix: string;
              replaces: number;
              /** @description Issued by the service (System Token, username token), not by the customer. */
              system: boolean;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/api-keys/{key_id}/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Usage of one of your API keys per day */
    get: {
      parameters: {
        query?: {
          days?: number;
        };
        header?: never;
        path: {
          key_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              daily: {
                /** @description UTC day, YYYY-MM-DD. */
                date: string;
                input_tokens: number;
                output_tokens: number;
                requests: number;
                spend: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              }[];
              days: number;
              key_id: number;
              /** @description ISO 8601 date-time, UTC. */
              since: string;
              totals: {
                input_tokens: number;
                output_tokens: number;
                requests: number;
                spend: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/api-token/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Rotate the username token (once per 24 hours) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: string | null;
              expires_at: string | null;
              id: number;
              kind: 'system_token' | 'username_token' | 'user_api_key' | 'managed_key' | 'agent_runtime';
              last_four: string;
              last_used_at: string | null;
              name: string | null;
              /** @description ISO 8601 date-time, UTC. */
              next_rotation_at: string;
              policy: {
                allowed_models: string[] | null;
                allowed_surfaces: string[] | null;
                rate_limit_plan: string | null;
                spending_limit_micros: number | null;
                spending_period: string | null;
              };
              prefix: string;
              /** @description Issued by the service (System Token, username token), not by the customer. */
              system: boolean;
              /** @description The new token, shown once. */
              username_token: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/edge-region': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sets the preferred API region (one of the configured regions) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A configured region id or name, e.g. london or chicago. */
            region: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              edge_region: {
                api_base_url: string;
                id: string;
                name: string;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/email': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Changes the account email with the password (unique; 409 when taken); the old address gets a link that undoes it */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            email: string;
            /** @description The account password. */
            password: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              email: string;
              /** @enum {boolean} */
              email_verified: false;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/email/verification': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Mails a new verification link to the account email (a few per 15 minutes); 409 when verified */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              sent: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/password': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Changes the password (dashboard, CLI login); every other dashboard session ends. An identity-provider account sets its first password without current_password */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Required unless the account has no password yet (identity-provider sign-up). */
            current_password?: string;
            new_password: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              password_changed: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/profile-name': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Saves first name and surname */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            first_name: string;
            surname: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              first_name: string;
              /** @enum {boolean} */
              show_name_dialog: false;
              surname: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/profile-name/dismiss': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Records that the name dialog was skipped */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description ISO 8601 date-time, UTC. */
              dismissed_at: string;
              /** @enum {boolean} */
              show_name_dialog: false;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/me/sso-link': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** A signed single-use dashboard link valid at most 5 minutes: {url, expires_at} */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A path of this site; default /dashboard.html. */
            returnTo?: string;
            /** @description Lifetime, at most 300 seconds (default 300). */
            ttlSeconds?: number;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description ISO 8601 date-time, UTC. */
              expires_at: string;
              url: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Inbox: {data:[{id,title,body,broadcast,created_at,read,read_at}], unread_count} */
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                body: string;
                broadcast: boolean;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                read: boolean;
                read_at: string | null;
                title: string;
              }[];
              unread_count: number;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/messages/{message_id}/read': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Marks one of your messages read (others: 404) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          message_id: number;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id: number;
              /** @enum {boolean} */
              read: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/permissions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Permission profile presets */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                allowed: boolean;
                description: string | null;
                id: string;
                /** @description The legacy turn-level sandboxPolicy of the profile, null when it has none */
                sandbox_policy: unknown;
              }[];
              default: {
                approval_policy: 'untrusted' | 'on-request' | 'never';
                sandbox: 'danger-full-access' | 'workspace-write' | 'read-only';
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List managed projects, newest first */
    get: {
      parameters: {
        query?: {
          cursor?: string;
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                created_at: number;
                id: string;
                name: string | null;
              }[];
              next_cursor: string | null;
            };
          };
        };
      };
    };
    put?: never;
    /** Create a managed project with its own workspace */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          /**
           * @example {
           *       "name": "demo"
           *     }
           */
          'application/json': {
            name?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: number;
              id: string;
              name: string | null;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Project metadata, latest thread summary and the defaults a turn runs with */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: number;
              id: string;
              latest_thread: {
                active_turn_id: string | null;
                created_at: number;
                id: string;
                /** @description Whether a running app-server has the thread loaded (preview and status come from it) */
                loaded: boolean;
                preview: string | null;
                status: {
                  activeFlags?: string[];
                  type: 'notLoaded' | 'idle' | 'systemError' | 'active';
                };
              } | null;
              name: string | null;
              turn_defaults: {
                approval_policy: 'untrusted' | 'on-request' | 'never';
                model: string;
                reasoning_effort: string;
                sandbox: 'danger-full-access' | 'workspace-write' | 'read-only';
                web_search: 'live' | 'cached' | 'disabled';
              };
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Delete a project with its thread link, approvals, events and workspace (409 while a turn runs) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description No content */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    options?: never;
    head?: never;
    /** Rename a project (null clears the name) */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name: string | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: number;
              id: string;
              name: string | null;
            };
          };
        };
      };
    };
    trace?: never;
  };
  '/api/v1/projects/{projectId}/approvals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Approvals of the latest thread (pending by default) */
    get: {
      parameters: {
        query?: {
          status?: 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost' | 'all';
        };
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                available_decisions: unknown;
                /** @description File changes of a file-change approval (workspace-relative paths) */
                changes: unknown;
                command: unknown;
                created_at: number;
                /** @description Workspace-relative */
                cwd: unknown;
                /** @description The decision sent to the app-server; null while pending */
                decision: unknown;
                expires_at: number;
                finished_at: number | null;
                item_id: string;
                kind: 'commandExecution' | 'fileChange';
                reason: unknown;
                request_id: string;
                status: 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost';
                thread_id: string;
                turn_id: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/approvals/{requestId}/resolve': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Resolve an approval; an empty body means {decision: "accept"}; twice → 409 with the recorded outcome */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
          requestId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            decision?: 'accept' | 'acceptForSession' | 'decline' | 'cancel';
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              available_decisions: unknown;
              /** @description File changes of a file-change approval (workspace-relative paths) */
              changes: unknown;
              command: unknown;
              created_at: number;
              /** @description Workspace-relative */
              cwd: unknown;
              /** @description The decision sent to the app-server; null while pending */
              decision: unknown;
              decision_applied: 'accept' | 'acceptForSession' | 'decline' | 'cancel';
              expires_at: number;
              finished_at: number | null;
              item_id: string;
              kind: 'commandExecution' | 'fileChange';
              reason: unknown;
              request_id: string;
              status: 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost';
              thread_id: string;
              turn_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/events': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Server-sent events of the project (id: sequence number, event: type); resumes after Last-Event-ID */
    get: {
      parameters: {
        query?: {
          after?: number;
        };
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Project events: `id:` the sequence number, `event:` the type, `data:` JSON; reset and overflow frames */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/event-stream': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/files/content': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Read a workspace file (utf8 text or base64) with its ETag */
    get: {
      parameters: {
        query: {
          path: string;
        };
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              content: string;
              encoding: 'utf8' | 'base64';
              etag: string;
              path: string;
              size_bytes: number;
            };
          };
        };
      };
    };
    /** Write a workspace file atomically (If-Match, If-None-Match: *; parent folders are created) */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            content: string;
            /** @default utf8 */
            encoding: 'utf8' | 'base64';
            path: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created: boolean;
              etag: string;
              path: string;
              size_bytes: number;
            };
          };
        };
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created: boolean;
              etag: string;
              path: string;
              size_bytes: number;
            };
          };
        };
      };
    };
    post?: never;
    /** Delete a workspace file, link (never its target) or folder; links on the path are not followed (409) */
    delete: {
      parameters: {
        query: {
          path: string;
        };
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description No content */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/files/download': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Download a regular workspace file as it is (attachment); links are never followed */
    get: {
      parameters: {
        query: {
          path: string;
        };
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The file as it is (attachment) */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/octet-stream': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/files/tree': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List workspace files (relative paths; symlinks reported, not followed; .git internals left out) */
    get: {
      parameters: {
        query?: {
          depth?: number;
          limit?: number;
          path?: string;
        };
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              entries: {
                path: string;
                /** @description Files only */
                size_bytes?: number;
                type: 'file' | 'directory' | 'symlink' | 'other';
              }[];
              path: string;
              truncated: boolean;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/open': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Open or resume the project (its latest thread, or a fresh one with new_thread); an optional prompt starts a turn */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Start a fresh thread for the project instead of resuming its latest one (409 while a turn runs) */
            new_thread?: boolean;
            prompt?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              project_id: string;
              resumed: boolean;
              thread: {
                active_turn_id: string | null;
                /** @description Epoch milliseconds */
                created_at: number;
                id: string;
                model_provider: string;
                name: string | null;
                preview: string;
                status: {
                  activeFlags?: string[];
                  type: 'notLoaded' | 'idle' | 'systemError' | 'active';
                };
                /** @description Only when the turns were asked for */
                turns?: {
                  id: string;
                  items: unknown[];
                  status: 'completed' | 'interrupted' | 'failed' | 'inProgress';
                }[];
                /** @description Epoch milliseconds */
                updated_at: number;
              };
              turn: {
                status: string;
                thread_id: string;
                turn_id: string;
              } | null;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/state': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Metadata, latest thread state and pending approvals */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              pending_approvals: {
                available_decisions: unknown;
                /** @description File changes of a file-change approval (workspace-relative paths) */
                changes: unknown;
                command: unknown;
                created_at: number;
                /** @description Workspace-relative */
                cwd: unknown;
                /** @description The decision sent to the app-server; null while pending */
                decision: unknown;
                expires_at: number;
                finished_at: number | null;
                item_id: string;
                kind: 'commandExecution' | 'fileChange';
                reason: unknown;
                request_id: string;
                status: 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost';
                thread_id: string;
                turn_id: string;
              }[];
              project: {
                created_at: number;
                id: string;
                name: string | null;
              };
              thread: {
                active_turn_id: string | null;
                /** @description Epoch milliseconds */
                created_at: number;
                id: string;
                model_provider: string;
                name: string | null;
                preview: string;
                status: {
                  activeFlags?: string[];
                  type: 'notLoaded' | 'idle' | 'systemError' | 'active';
                };
                /** @description Only when the turns were asked for */
                turns?: {
                  id: string;
                  items: unknown[];
                  status: 'completed' | 'interrupted' | 'failed' | 'inProgress';
                }[];
                /** @description Epoch milliseconds */
                updated_at: number;
              } | null;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/thread': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The latest thread, with its turns */
    get: {
      parameters: {
        query?: {
          include_turns?: boolean;
        };
        header?: never;
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              thread: {
                active_turn_id: string | null;
                /** @description Epoch milliseconds */
                created_at: number;
                id: string;
                model_provider: string;
                name: string | null;
                preview: string;
                status: {
                  activeFlags?: string[];
                  type: 'notLoaded' | 'idle' | 'systemError' | 'active';
                };
                /** @description Only when the turns were asked for */
                turns?: {
                  id: string;
                  items: unknown[];
                  status: 'completed' | 'interrupted' | 'failed' | 'inProgress';
                }[];
                /** @description Epoch milliseconds */
                updated_at: number;
              } | null;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/turns': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Start a turn (409 while one runs); Idempotency-Key returns the first result */
    post: {
      parameters: {
        query?: never;
        header?: {
          'idempotency-key'?: string;
        };
        path: {
          projectId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          /**
           * @example {
           *       "prompt": "Add a README that explains the project",
           *       "approvalPolicy": "untrusted"
           *     }
           */
          'application/json': {
            approvalPolicy?: string;
            effort?: string;
            /** @description Text, or a list of {type:"text",text} and {type:"image",url:"data:…"} items */
            input?: unknown;
            model?: string;
            /** @description Alias of permissions */
            permission_profile?: unknown;
            /** @description Alias of permissions */
            permissionProfile?: unknown;
            /** @description Permission profile id, e.g. ":workspace" (or "workspace", or {"id": ":workspace"}) */
            permissions?: unknown;
            prompt?: string;
            /** @description Thread sandbox mode: read-only, workspace-write, danger-full-access */
            sandbox?: string;
            /** @description Legacy sandbox policy object (clients up to 0.135.0), e.g. {"type":"workspaceWrite"} */
            sandbox_policy?: unknown;
            /** @description Alias of sandbox_policy */
            sandboxPolicy?: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "turn_id": "0199d5a2-7c1e-7f43-9a5b-2d8e61f0c4aa",
             *       "thread_id": "0199d5a1-02b4-7d10-8e2f-5c3b9a7d1e60",
             *       "status": "inProgress"
             *     }
             */
            'application/json': {
              status: string;
              thread_id: string;
              turn_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/turns/{turnId}/changes': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A turn's file changes with their diffs (workspace-relative paths) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
          turnId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              files: {
                diff: string;
                item_id: string;
                kind: {
                  /** @description add, delete or update */
                  type: string;
                };
                /** @description Workspace-relative */
                path: string;
                status: string;
              }[];
              status: string;
              turn_id: string;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/projects/{projectId}/turns/{turnId}/interrupt': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Interrupt the running turn (409 when it is not running) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          projectId: string;
          turnId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              interrupted: true;
              thread_id: string;
              turn_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/purchase-preferences': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Your purchase preferences (default pack, payment method, display currency of estimates) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              default_pack_id: string | null;
              /** @description ISO 4217 code of the estimates. */
              display_currency: string;
              pay_currency: string | null;
              payment_method: ('card' | 'crypto' | 'cash') | null;
            };
          };
        };
      };
    };
    /** Save purchase preferences: default pack and pay currency of checkouts that leave them out, the dashboard’s preferred payment method and display currency of estimates (checkout amounts stay USD) */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            default_pack_id: string | null;
            display_currency: string;
            pay_currency: string | null;
            payment_method: 'card' | 'crypto' | 'cash' | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              default_pack_id: string | null;
              /** @description ISO 4217 code of the estimates. */
              display_currency: string;
              pay_currency: string | null;
              payment_method: ('card' | 'crypto' | 'cash') | null;
            };
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/raffle': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Current raffle (prize, entries, draw time, seed hash) and past draws with seeds and winners */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              current: {
                /** @description ISO 8601 date-time, UTC. */
                draws_at: string;
                entrants: number;
                /** @description ISO 8601 date-time, UTC. */
                opens_at: string;
                prize_micros: number;
                raffle_id: number;
                seed_hash: string;
                total_entries: number;
                winners: number;
                your_entrant_id: string;
                your_entries: number;
              };
              enabled: boolean;
              fairness: string;
              how_to_enter: {
                per_daily_checkin: number;
                per_paid_top_up: number;
              };
              past_draws: {
                /** @description ISO 8601 date-time, UTC. */
                drew_at: string;
                entries: {
                  entrant: string;
                  entries: number;
                }[];
                prize_micros: number;
                raffle_id: number;
                seed: string;
                seed_hash: string;
                winners: string[];
                you_won: boolean;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/referral': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Referral code and link, club level, referred customers (counts), cash-wallet earnings */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              cash_wallet: {
                available: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                balance: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              };
              club_level: string | null;
              earnings: {
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                net: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                total: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
              };
              levels: {
                min_paid_referrals: number;
                name: string;
              }[];
              referral_code: string;
              referral_link: string;
              referred: {
                paid: number;
                total: number;
              };
              share_percent: number;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/setup/health-check': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Non-billable readiness check of the calling key */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            model?: string;
          } | null;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              billable: false;
              destination: {
                error?: string;
                latency_ms: number;
                provider: string | null;
                reachable: boolean;
                status: number | null;
              } | null;
              key: {
                active: boolean;
                expires_at: string | null;
                id: number;
                revoked: boolean;
              };
              model: {
                allowed: boolean;
                requested: string | null;
                resolved: string | null;
              };
              /** @description Key active, model allowed, wallet can pay and destination reachable. */
              ok: boolean;
              wallet: {
                available: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                ok: boolean;
                plan: string | null;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/share-credit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The one-time share credit: share link, visits by others, claimed or not */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              amount: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              claimable: boolean;
              claimed: boolean;
              claimed_at: string | null;
              enabled: boolean;
              requirement: string;
              share_link: string;
              visits_by_others: number;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/share-credit/claim': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Claim the one-time share credit once the share link was opened from another network and browser (409 says what is missing; needs a verified email and humanCheck) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The solved ALTCHA challenge from GET /api/v1/auth/human-check. */
            humanCheck?: string;
          } | null;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              amount: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              /** @enum {boolean} */
              claimed: true;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/skills': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Skills available to agent sessions */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                description: string;
                enabled: boolean;
                name: string;
                scope: string;
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/spin-wheel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Spin-wheel status: entry left, prize table, result */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              enabled: boolean;
              entries_left: number;
              prizes: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                id: string;
                label: string;
                probability: number;
              }[];
              result: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                label?: string;
                prize?: string;
                /** @description ISO 8601 date-time, UTC. */
                spun_at: string;
              } | null;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/spin-wheel/spin': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Use the single spin-wheel entry (409 when used; needs a verified email and humanCheck) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The solved ALTCHA challenge from GET /api/v1/auth/human-check. */
            humanCheck?: string;
          } | null;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              amount: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              /** @enum {number} */
              entries_left: 0;
              prize: {
                id: string;
                label: string;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/status/regions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Regional availability (measured from each region health URL, cached briefly) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description Ids of the available regions. */
              available: string[];
              regions: {
                api_base_url: string;
                available: boolean;
                /** @description ISO 8601 date-time, UTC. */
                checked_at: string;
                id: string;
                latency_ms: number | null;
                name: string;
                reason: string | null;
                status: 'available' | 'unavailable';
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/toolbox': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Agent preferences: {settings, effective, allowed} */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              allowed: {
                approvalPolicy: ('untrusted' | 'on-request' | 'never')[];
                webSearch: ('live' | 'cached' | 'disabled')[];
              };
              /** @description What new turns run with */
              effective: {
                approvalPolicy: 'untrusted' | 'on-request' | 'never';
                reasoningEffort: string;
                webSearch: 'live' | 'cached' | 'disabled';
              };
              /** @description What the customer chose */
              settings: {
                approvalPolicy?: 'untrusted' | 'on-request' | 'never';
                reasoningEffort?: string;
                webSearch?: 'live' | 'cached' | 'disabled';
              };
            };
          };
        };
      };
    };
    put?: never;
    /** Updates agent preferences within what the operator allows (web search at most, approval policy at least) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            approvalPolicy?: 'never' | 'on-request' | 'untrusted';
            reasoningEffort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
            webSearch?: 'live' | 'cached' | 'disabled';
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              allowed: {
                approvalPolicy: ('untrusted' | 'on-request' | 'never')[];
                webSearch: ('live' | 'cached' | 'disabled')[];
              };
              /** @description What new turns run with */
              effective: {
                approvalPolicy: 'untrusted' | 'on-request' | 'never';
                reasoningEffort: string;
                webSearch: 'live' | 'cached' | 'disabled';
              };
              /** @description What the customer chose */
              settings: {
                approvalPolicy?: 'untrusted' | 'on-request' | 'never';
                reasoningEffort?: string;
                webSearch?: 'live' | 'cached' | 'disabled';
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/unlimited-coding/plans': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Unlimited Coding plans */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              active: {
                /** @description ISO 8601 date-time, UTC. */
                ends_at: string;
                plan: string;
              } | null;
              plans: {
                active: boolean;
                description: string | null;
                duration_days: number;
                fair_use: {
                  requests_per_hour: number | null;
                  tokens_per_day: number | null;
                };
                id: string;
                models: string[] | null;
                name: string;
                price: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                surfaces: ('gateway' | 'projects')[];
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/vip': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** VIP priority server access of the caller */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              description: string;
              models: string[];
              servers: string[];
              vip: boolean | null;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/auto-topup': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Auto top-up setting of the token wallet */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description A charge may start (re-armed once the balance is above the threshold again). */
              armed: boolean;
              charge_pending: boolean;
              enabled: boolean;
              pack_id: string | null;
              saved_card: boolean;
              threshold: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
            };
          };
        };
      };
    };
    put?: never;
    /** Configure auto top-up: when a settlement leaves the available balance below the threshold, one off-session charge of the saved card buys the pack (409 without a saved card) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            enabled: boolean;
            pack_id: string;
            threshold_micros: number;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description A charge may start (re-armed once the balance is above the threshold again). */
              armed: boolean;
              charge_pending: boolean;
              enabled: boolean;
              pack_id: string | null;
              saved_card: boolean;
              threshold: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/card/checkout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Card checkout session for a credit pack (token wallet; default: your saved default pack); answers the hosted checkout URL */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            discount_code?: string;
            /** @description Absent: your default pack (purchase preferences). */
            pack_id?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              checkout_url: string;
              payment: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              };
              session_id: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/card/confirm': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Confirm a paid card session (credits the token wallet once) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            session_id: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              credited: boolean;
              payment: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/crypto/checkout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Crypto invoice for a pack (USD price, chosen pay currency, optional bonus code; token wallet); pack and coin default to your purchase preferences */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description A top-up bonus code or your mailed personal code: extra credit when paid. */
            discount_code?: string;
            /** @description Absent: your default pack (purchase preferences). */
            pack_id?: string;
            /** @description Absent: your saved pay currency (purchase preferences). */
            pay_currency?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              actually_paid: (string | number) | null;
              amount: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              clawed_back: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              credit: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              credited_at: string | null;
              /** @enum {string} */
              currency: 'USD';
              debt: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              discount_code: string | null;
              invoice_url: string | null;
              method: 'card' | 'crypto' | 'cash' | 'top_up';
              network: string | null;
              order_id: string;
              pack_id: string | null;
              pay_amount: (string | number) | null;
              pay_currency: string | null;
              payment_id: string;
              processor_status: string | null;
              receipt_available: boolean;
              refunded: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
              wallet: 'token' | 'cash';
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/crypto/options': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Coins and networks accepted, packs (prices in USD) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              coins: {
                currency: string;
                name: string;
                network: string;
              }[];
              enabled: boolean;
              max_refund_addresses: number;
              packs: {
                credit_micros: number;
                id: string;
                name: string;
                price_micros: number;
              }[];
              /** @enum {string} */
              price_currency: 'USD';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/crypto/orders/{order_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One of your crypto orders, its status refreshed from the processor, with coin sent back to your refund address (payouts) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          order_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              actually_paid: (string | number) | null;
              amount: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              clawed_back: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              credit: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              credited_at: string | null;
              /** @enum {string} */
              currency: 'USD';
              debt: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              discount_code: string | null;
              invoice_url: string | null;
              method: 'card' | 'crypto' | 'cash' | 'top_up';
              network: string | null;
              order_id: string;
              pack_id: string | null;
              pay_amount: (string | number) | null;
              pay_currency: string | null;
              payment_id: string;
              payouts: {
                address: string | null;
                /** @description Coin amount (the processor’s unit). */
                amount: string;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                currency: string;
                kind: 'overpayment' | 'refund';
                network: string;
                processor_payout_id: string | null;
                status: 'awaiting_address' | 'sent' | 'failed';
              }[];
              processor_status: string | null;
              receipt_available: boolean;
              refunded: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
              wallet: 'token' | 'cash';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/crypto/orders/{order_id}/receipt.pdf': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** PDF receipt of a paid crypto order (404 unless paid) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          order_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The PDF receipt. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/pdf': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/crypto/refund-addresses': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Your saved crypto refund addresses */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              addresses: {
                address: string;
                address_id: string;
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                label: string | null;
                network: string;
              }[];
              max: number;
            };
          };
        };
      };
    };
    put?: never;
    /** Save a refund address (format checked per network: EVM checksum, base58check, bech32) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            address: string;
            label?: string;
            network: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              address: string;
              address_id: string;
              /** @description ISO 8601 date-time, UTC. */
              created_at: string;
              label: string | null;
              network: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/crypto/refund-addresses/{address_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /** Delete one of your refund addresses */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          address_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Deleted. */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/payments': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Credits and corrections of the wallets (payments), and card, crypto, cash and top-up purchases with their states (purchases), newest first */
    get: {
      parameters: {
        query?: {
          limit?: number;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              payments: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                id: number;
                kind: string;
                memo: string | null;
                transfer_id: string;
                wallet: 'token' | 'cash';
              }[];
              purchases: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              }[];
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/status': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Balance, holds, available credit and plan */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "balance": {
             *         "micros": 4993280,
             *         "usd": "4.993280"
             *       },
             *       "holds": {
             *         "micros": 0,
             *         "usd": "0.000000"
             *       },
             *       "available": {
             *         "micros": 4993280,
             *         "usd": "4.993280"
             *       },
             *       "cash_balance": {
             *         "micros": 0,
             *         "usd": "0.000000"
             *       },
             *       "plan": null,
             *       "plan_ends_at": null,
             *       "currency": "USD"
             *     }
             */
            'application/json': {
              available: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              balance: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              cash_balance: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              /** @enum {string} */
              currency: 'USD';
              holds: {
                /** @description Micro-USD (1 USD = 1 000 000). */
                micros: number;
                /** @description The same amount in USD, 6 decimals. */
                usd: string;
              };
              plan: string | null;
              plan_ends_at: string | null;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/top-up': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Load the credit of a paid pack (card session or crypto order) into its wallet, once per payment; answers the purchase */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json':
            | {
                session_id: string;
              }
            | {
                order_id: string;
              };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              credited: boolean;
              purchase: {
                amount: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                clawed_back: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                /** @description ISO 8601 date-time, UTC. */
                created_at: string;
                credit: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                credited_at: string | null;
                /** @enum {string} */
                currency: 'USD';
                debt: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                method: 'card' | 'crypto' | 'cash' | 'top_up';
                pack_id: string | null;
                payment_id: string;
                refunded: {
                  /** @description Micro-USD (1 USD = 1 000 000). */
                  micros: number;
                  /** @description The same amount in USD, 6 decimals. */
                  usd: string;
                };
                status: 'open' | 'pending' | 'partially_paid' | 'paid' | 'failed' | 'expired';
                wallet: 'token' | 'cash';
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/topup-discount': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Validate a top-up bonus code (expiry, total uses, once per customer); use it as discount_code at checkout */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            code: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json':
              | {
                  bonus_percent: number;
                  code: string;
                  expires_at: string | null;
                  packs: {
                    bonus: {
                      /** @description Micro-USD (1 USD = 1 000 000). */
                      micros: number;
                      /** @description The same amount in USD, 6 decimals. */
                      usd: string;
                    };
                    pack_id: string;
                    price: {
                      /** @description Micro-USD (1 USD = 1 000 000). */
                      micros: number;
                      /** @description The same amount in USD, 6 decimals. */
                      usd: string;
                    };
                  }[];
                  /** @enum {boolean} */
                  valid: true;
                }
              | {
                  reason: string;
                  /** @enum {boolean} */
                  valid: false;
                };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/api/v1/wallet/topupemail-session-discount': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Issue a time-boxed personal top-up discount and mail it (one active at a time; 409 while one is) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never> | null;
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              bonus_percent: number;
              /** @description ISO 8601 date-time, UTC. */
              expires_at: string;
              mailed_to: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health/live': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process serves HTTP */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {string} */
              status: 'ok';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: database reachable, migrations applied, not draining (503 with Retry-After otherwise) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              database: string;
              /** @enum {string} */
              migrations: 'current';
              /** @enum {string} */
              status: 'ready';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/healthz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Liveness: the process serves HTTP */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {string} */
              status: 'ok';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Prometheus metrics (operator) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Prometheus text exposition format 0.0.4 */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': string;
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/r/{referral_code}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Share link: records the visit (once per network and browser), keeps the code for sign-up (cookie sy_ref) and redirects to the sign-up page with ?ref= */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          referral_code: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description To the sign-up page (`Location`), with `?ref=` for a known code; sets `sy_ref`. */
        302: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/readyz': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Readiness: the database answers and the node is not draining */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              database: string;
              /** @enum {string} */
              status: 'ready';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/chat/completions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List stored chat completions of this bearer
     * @description Completions created with `store: true`. Filters: `model`, `metadata[key]=value` (repeatable).
     */
    get: {
      parameters: {
        query?: {
          after?: string;
          limit?: number;
          model?: string;
          order?: 'asc' | 'desc';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                choices: {
                  finish_reason: string | null;
                  index: number;
                  message: {
                    role: string;
                  };
                }[];
                created: number;
                id: string;
                metadata: {
                  [key: string]: string;
                } | null;
                model: string;
                /** @enum {string} */
                object: 'chat.completion';
                usage?: Record<string, never> | null;
              }[];
              first_id: string | null;
              has_more: boolean;
              last_id: string | null;
              /** @enum {string} */
              object: 'list';
            };
          };
        };
      };
    };
    put?: never;
    /**
     * Create a chat completion
     * @description OpenAI-compatible. `stream: true` returns server-sent `chat.completion.chunk` events ending with `[DONE]`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          /**
           * @example {
           *       "model": "power-ai",
           *       "messages": [
           *         {
           *           "role": "user",
           *           "content": "Say hello"
           *         }
           *       ],
           *       "max_tokens": 256
           *     }
           */
          'application/json': {
            max_tokens?: number;
            /** @description system/developer, user (text and image_url parts), assistant (with tool_calls), tool (with tool_call_id). */
            messages: ({
              role: string;
            } & {
              [key: string]: unknown;
            })[];
            /** @description A model id or alias such as `power-ai` (see GET /v1/models). */
            model: string;
            stream?: boolean;
            tool_choice?: unknown;
            tools?: {
              [key: string]: unknown;
            }[];
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description With `stream: true`: server-sent `chat.completion.chunk` events ending with `data: [DONE]`. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "id": "chatcmpl-9f2c4e0a1b7d",
             *       "object": "chat.completion",
             *       "created": 1764235200,
             *       "model": "power-ai",
             *       "choices": [
             *         {
             *           "index": 0,
             *           "message": {
             *             "role": "assistant",
             *             "content": "Hello!"
             *           },
             *           "finish_reason": "stop"
             *         }
             *       ],
             *       "usage": {
             *         "prompt_tokens": 9,
             *         "completion_tokens": 3,
             *         "total_tokens": 12
             *       }
             *     }
             */
            'application/json': {
              choices: {
                finish_reason: string | null;
                index: number;
                message: {
                  role: string;
                };
              }[];
              created: number;
              id: string;
              model: string;
              /** @enum {string} */
              object: 'chat.completion';
              usage?: Record<string, never> | null;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/chat/completions/{completion_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Get a stored chat completion */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          completion_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              choices: {
                finish_reason: string | null;
                index: number;
                message: {
                  role: string;
                };
              }[];
              created: number;
              id: string;
              metadata: {
                [key: string]: string;
              } | null;
              model: string;
              /** @enum {string} */
              object: 'chat.completion';
              usage?: Record<string, never> | null;
            };
          };
        };
      };
    };
    put?: never;
    /** Update metadata (OpenAI form) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          completion_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Up to 16 pairs; keys up to 64 characters, values up to 512. Replaces the stored metadata. */
            metadata: {
              [key: string]: string;
            } | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              choices: {
                finish_reason: string | null;
                index: number;
                message: {
                  role: string;
                };
              }[];
              created: number;
              id: string;
              metadata: {
                [key: string]: string;
              } | null;
              model: string;
              /** @enum {string} */
              object: 'chat.completion';
              usage?: Record<string, never> | null;
            };
          };
        };
      };
    };
    /** Delete a stored chat completion */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          completion_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              deleted: true;
              id: string;
              /** @enum {string} */
              object: 'chat.completion.deleted';
            };
          };
        };
      };
    };
    options?: never;
    head?: never;
    /** Update the metadata of a stored chat completion */
    patch: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          completion_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Up to 16 pairs; keys up to 64 characters, values up to 512. Replaces the stored metadata. */
            metadata: {
              [key: string]: string;
            } | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              choices: {
                finish_reason: string | null;
                index: number;
                message: {
                  role: string;
                };
              }[];
              created: number;
              id: string;
              metadata: {
                [key: string]: string;
              } | null;
              model: string;
              /** @enum {string} */
              object: 'chat.completion';
              usage?: Record<string, never> | null;
            };
          };
        };
      };
    };
    trace?: never;
  };
  '/v1/chat/completions/{completion_id}/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the request messages of a stored chat completion */
    get: {
      parameters: {
        query?: {
          after?: string;
          limit?: number;
          order?: 'asc' | 'desc';
        };
        header?: never;
        path: {
          completion_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                role: string;
              }[];
              first_id: string | null;
              has_more: boolean;
              last_id: string | null;
              /** @enum {string} */
              object: 'list';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/completions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Legacy text completion (adapted onto the responses route)
     * @description Body: model, prompt (string or array of strings), max_tokens, temperature, top_p, stop, echo, stream, stream_options.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description With `stream: true`: server-sent `text_completion` chunks ending with `data: [DONE]`. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              choices: {
                finish_reason: string | null;
                index: number;
                text: string;
              }[];
              created: number;
              id: string;
              model: string;
              /** @enum {string} */
              object: 'text_completion';
              usage?: Record<string, never> | null;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/embeddings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create embeddings
     * @description OpenAI-compatible. Billed by input tokens on the model's rate card; key policies apply as for any model call.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            dimensions?: number;
            /** @description `float` (default) or `base64`. */
            encoding_format?: string;
            /** @description A string, a list of strings, or token arrays. */
            input: unknown;
            /** @description An embedding model id (its capabilities list `embeddings` in GET /v1/models). */
            model: string;
            user?: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                embedding: number[] | string;
                index: number;
              }[];
              model: string;
              /** @enum {string} */
              object: 'list';
              usage?: Record<string, never>;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a message (Anthropic-style)
     * @description Image blocks and tools supported. `stream: true` returns message_start, content_block_start/delta/stop, message_delta, message_stop.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Accepted as sent by Anthropic clients. */
          'anthropic-version'?: string;
          /** @description Messages API version (default 2023-06-01). */
          'messages-api-version'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          /**
           * @example {
           *       "model": "power-ai",
           *       "max_tokens": 256,
           *       "messages": [
           *         {
           *           "role": "user",
           *           "content": "Say hello"
           *         }
           *       ]
           *     }
           */
          'application/json': {
            max_tokens?: number;
            messages: ({
              role: string;
            } & {
              [key: string]: unknown;
            })[];
            model: string;
            stream?: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description With `stream: true`: message_start, content_block_start/delta/stop, message_delta, message_stop events. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "id": "msg_01XyZ4a7Q2",
             *       "type": "message",
             *       "role": "assistant",
             *       "model": "power-ai",
             *       "content": [
             *         {
             *           "type": "text",
             *           "text": "Hello!"
             *         }
             *       ],
             *       "stop_reason": "end_turn",
             *       "stop_sequence": null,
             *       "usage": {
             *         "input_tokens": 9,
             *         "output_tokens": 3
             *       }
             *     }
             */
            'application/json': {
              content: {
                type: string;
              }[];
              id: string;
              model: string;
              /** @enum {string} */
              role: 'assistant';
              stop_reason: string | null;
              /** @enum {string} */
              type: 'message';
              usage: {
                input_tokens: number;
                output_tokens: number;
              };
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/messages/{*}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Other messages subpaths (not served)
     * @description Every subpath other than count_tokens answers 404 in the Anthropic error shape; nothing is forwarded.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          '*': string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Every subpath other than count_tokens: nothing is served or forwarded. */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              error: {
                message: string;
                /** @enum {string} */
                type: 'not_found_error';
              };
              /** @enum {string} */
              type: 'error';
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/messages/count_tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Count the input tokens of a Messages request */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description Accepted as sent by Anthropic clients. */
          'anthropic-version'?: string;
          /** @description Messages API version (default 2023-06-01). */
          'messages-api-version'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            max_tokens?: number;
            messages: ({
              role: string;
            } & {
              [key: string]: unknown;
            })[];
            model: string;
            stream?: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              input_tokens: number;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/models': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List models and aliases (power-ai among them) with capabilities and prices */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "object": "list",
             *       "data": [],
             *       "has_more": false,
             *       "first_id": null,
             *       "last_id": null
             *     }
             */
            'application/json': {
              data: {
                /** @description True for a service alias (such as `power-ai`) whose destination may change. */
                alias: boolean;
                capabilities: {
                  context_window: number;
                  embeddings: boolean;
                  images: boolean;
                  max_output_tokens: number;
                  responses_api: boolean;
                  structured_output: boolean;
                  tools: boolean;
                  web_search: boolean;
                };
                created: number;
                created_at: string;
                display_name: string;
                id: string;
                /** @enum {string} */
                object: 'model';
                owned_by: string;
                pricing: Record<string, never> | null;
                /** @enum {string} */
                type: 'model';
              }[];
              first_id: string | null;
              has_more: boolean;
              last_id: string | null;
              /** @enum {string} */
              object: 'list';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/models/{*}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One model or alias descriptor
     * @description The model id may contain slashes (`/v1/models/vendor/model-name`).
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          /** @description model_id */
          '*': string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description True for a service alias (such as `power-ai`) whose destination may change. */
              alias: boolean;
              capabilities: {
                context_window: number;
                embeddings: boolean;
                images: boolean;
                max_output_tokens: number;
                responses_api: boolean;
                structured_output: boolean;
                tools: boolean;
                web_search: boolean;
              };
              created: number;
              created_at: string;
              display_name: string;
              id: string;
              /** @enum {string} */
              object: 'model';
              owned_by: string;
              pricing: Record<string, never> | null;
              /** @enum {string} */
              type: 'model';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Create a model response
     * @description OpenAI-compatible. `stream: true` returns server-sent events (`response.created` … `response.completed`; a failure after the stream started ends with `response.failed`). `background: true` queues the response; poll GET /v1/responses/{response_id}.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          /**
           * @example {
           *       "model": "power-ai",
           *       "input": "Say hello",
           *       "max_output_tokens": 256
           *     }
           */
          'application/json': {
            background?: boolean;
            /** @description A string, or a list of input items (messages, function calls and their outputs). */
            input: unknown;
            instructions?: string;
            max_output_tokens?: number;
            /** @description A model id or alias such as `power-ai`. */
            model: string;
            store?: boolean;
            stream?: boolean;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description With `stream: true`: server-sent events (`response.created` … `response.completed`). `background: true` answers the queued response. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            /**
             * @example {
             *       "id": "resp_6a1f0c2d9e8b",
             *       "object": "response",
             *       "created_at": 1764235200,
             *       "status": "completed",
             *       "model": "power-ai",
             *       "output": [
             *         {
             *           "type": "message",
             *           "id": "msg_2b7e1d",
             *           "role": "assistant",
             *           "status": "completed",
             *           "content": [
             *             {
             *               "type": "output_text",
             *               "text": "Hello!",
             *               "annotations": []
             *             }
             *           ]
             *         }
             *       ],
             *       "usage": {
             *         "input_tokens": 9,
             *         "output_tokens": 3,
             *         "total_tokens": 12
             *       }
             *     }
             */
            'application/json': {
              id: string;
              model: string;
              /** @enum {string} */
              object: 'response';
              output: {
                type: string;
              }[];
              /** @description queued, in_progress, completed, failed, incomplete or cancelled */
              status: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses/{response_id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Retrieve a stored response; stream=true replays its event stream */
    get: {
      parameters: {
        query?: {
          starting_after?: number;
          stream?: boolean;
        };
        header?: never;
        path: {
          response_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description With `stream=true`: the stored response replayed as server-sent events. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id: string;
              model: string;
              /** @enum {string} */
              object: 'response';
              output: {
                type: string;
              }[];
              /** @description queued, in_progress, completed, failed, incomplete or cancelled */
              status: string;
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Delete a stored response */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          response_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @enum {boolean} */
              deleted: true;
              id: string;
              /** @enum {string} */
              object: 'response';
            };
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses/{response_id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Cancel a background response that is still pending */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          response_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description With `stream: true`: server-sent events (`response.created` … `response.completed`). `background: true` answers the queued response. */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id: string;
              model: string;
              /** @enum {string} */
              object: 'response';
              output: {
                type: string;
              }[];
              /** @description queued, in_progress, completed, failed, incomplete or cancelled */
              status: string;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses/{response_id}/compact': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Compact a stored response into a summary (a billed model call) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          response_id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            instructions?: string;
            model?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: number;
              id: string;
              /** @enum {string} */
              object: 'response.compaction';
              output: Record<string, never>[];
              usage: Record<string, never> | null;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses/{response_id}/input_items': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** List the input items of a stored response */
    get: {
      parameters: {
        query?: {
          after?: string;
          limit?: number;
          order?: 'asc' | 'desc';
        };
        header?: never;
        path: {
          response_id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              data: {
                id: string;
                type: string;
              }[];
              first_id: string | null;
              has_more: boolean;
              last_id: string | null;
              /** @enum {string} */
              object: 'list';
            };
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses/compact': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Compact a conversation (OpenAI form: model, input and/or previous_response_id) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            input?:
              | string
              | {
                  [key: string]: unknown;
                }[];
            instructions?: string;
            model: string;
            previous_response_id?: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              created_at: number;
              id: string;
              /** @enum {string} */
              object: 'response.compaction';
              output: Record<string, never>[];
              usage: Record<string, never> | null;
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses/count_tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Estimate the input tokens of a Responses request
     * @description Same body as create. A local tokenizer estimate: no upstream call, not billed.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            model: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              input_tokens: number;
              /** @enum {string} */
              object: 'response.input_tokens';
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/responses/input_tokens': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Estimate input tokens (OpenAI form)
     * @description Same body as create. A local tokenizer estimate: no upstream call, not billed.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            model: string;
          } & {
            [key: string]: unknown;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              input_tokens: number;
              /** @enum {string} */
              object: 'response.input_tokens';
            };
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: never;
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
