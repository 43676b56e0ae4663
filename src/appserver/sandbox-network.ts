/**
 * The network a sandbox gets: a namespace of its own (bubblewrap `--unshare-net`), holding nothing but its own
 * loopback, so no port of the host — database, Redis, metrics, other services — can be reached from inside. What
 * the app-server needs outside comes through Unix sockets the service listens on (one per customer and purpose),
 * each bound read-only into the sandbox and bridged onto the sandbox's own loopback by `socat`, which runs as the
 * customer's uid next to the app-server: the model provider (this service's `/v1`) on `MODEL_BRIDGE_PORT`, and,
 * when the operator allows egress, the egress proxy on `EGRESS_BRIDGE_PORT` (named in the proxy variables every
 * command inherits). The app-server starts only once each bridge listens.
 */

/** Host paths of the customer's sockets; null egress: no way out but the model provider. */
export interface SandboxBridges {
  model: string;
  egress: string | null;
}

/** Where the sockets appear inside the sandbox. */
export const SANDBOX_SOCKET_DIR = '/run/switchyard';
/** Loopback ports inside the sandbox's namespace (nothing else listens there). */
export const MODEL_BRIDGE_PORT = 9300;
export const EGRESS_BRIDGE_PORT = 3128;
/** The service's base URL as seen from inside the sandbox (its `/v1` is the app-server's model provider). */
export const SANDBOX_SERVICE_URL = `http://127.0.0.1:${MODEL_BRIDGE_PORT}`;

const inside = (name: string) => `${SANDBOX_SOCKET_DIR}/${name}.sock`;

interface Bridge {
  port: number;
  socket: string;
}

function bridgesOf(bridges: SandboxBridges): Bridge[] {
  const list = [{ port: MODEL_BRIDGE_PORT, socket: inside('model') }];
  if (bridges.egress !== null) list.push({ port: EGRESS_BRIDGE_PORT, socket: inside('egress') });
  return list;
}

/** bubblewrap options that show each socket (read-only: connecting needs no write access to the mount). */
export function bridgeMounts(bridges: SandboxBridges): string[] {
  const args = ['--perms', '0755', '--dir', SANDBOX_SOCKET_DIR, '--ro-bind', bridges.model, inside('model')];
  if (bridges.egress !== null) args.push('--ro-bind', bridges.egress, inside('egress'));
  return args;
}

/** A listening socket on 127.0.0.1:port, as /proc/net/tcp writes it (address and port in hex, state 0A). */
const listeningLine = (port: number) => `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A`;

/** How long the wrapper waits for a bridge to listen (100 × 20 ms) before it gives up. */
const BRIDGE_WAIT_STEPS = 100;

/**
 * `sh -c` script that starts one socat per bridge (stdin and stdout away from the app-server's JSON-RPC pipe),
 * waits until each listens, then becomes the command given as its arguments. When the app-server ends, the PID
 * namespace ends and the bridges with it.
 */
export function bridgeScript(bridges: SandboxBridges, socat: string): string {
  const lines = ['set -eu'];
  for (const { port, socket } of bridgesOf(bridges)) {
    lines.push(`'${socat}' TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${socket} </dev/null >/dev/null &`);
  }
  for (const { port } of bridgesOf(bridges)) {
    lines.push(
      `n=0; until grep -q '${listeningLine(port)}' /proc/net/tcp; do n=$((n+1)); if [ "$n" -gt ${BRIDGE_WAIT_STEPS} ]; then echo 'switchyard: the sandbox network bridge on port ${port} did not start' >&2; exit 70; fi; sleep 0.02; done`,
    );
  }
  lines.push('exec "$@"');
  return lines.join('\n');
}

/** The command that starts the bridges, then `inner` (already dropped to the customer's uid). */
export function bridgedCommand(bridges: SandboxBridges, socat: string, inner: string[]): string[] {
  return ['/bin/sh', '-c', bridgeScript(bridges, socat), 'switchyard-bridge', ...inner];
}

/**
 * Proxy variables for the app-server and every command it runs when egress goes through the proxy; the model
 * provider on the sandbox's loopback is reached directly.
 */
export function egressEnv(bridges: SandboxBridges): Record<string, string> {
  if (bridges.egress === null) return {};
  const proxy = `http://127.0.0.1:${EGRESS_BRIDGE_PORT}`;
  const noProxy = 'localhost,127.0.0.1,::1';
  return {
    HTTP_PROXY: proxy,
    HTTPS_PROXY: proxy,
    ALL_PROXY: proxy,
    http_proxy: proxy,
    https_proxy: proxy,
    all_proxy: proxy,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
}
