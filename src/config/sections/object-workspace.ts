/** Assistant-desktop object workspace: private folders and repository archives fetched on the customer's behalf. */
import { Type, type Static } from '@sinclair/typebox';

const HostList = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { default: [], description });

export const ObjectWorkspaceSection = Type.Object(
  {
    allowHosts: HostList(
      'Hosts exempt from the public-address check and the port rule: names (`*.example.com` for sub-domains), IP addresses or CIDRs.',
    ),
    denyHosts: HostList('Hosts always refused (same syntax), also when a name resolves to a listed address.'),
    onlyAllowHosts: Type.Boolean({ default: false, description: 'Fetch only from hosts on allowHosts.' }),
    ports: Type.Array(Type.Integer({ minimum: 1, maximum: 65535 }), {
      default: [443],
      description: 'Ports allowed for hosts not on allowHosts (empty: any).',
    }),
    maxDownloadBytes: Type.Integer({ minimum: 1024, default: 50 * 1024 * 1024, description: 'Largest archive download (413 beyond).' }),
    maxUnpackedBytes: Type.Integer({
      minimum: 1024,
      default: 256 * 1024 * 1024,
      description: 'Largest total size of the files in an archive (413 beyond).',
    }),
    maxEntries: Type.Integer({ minimum: 1, default: 20_000, description: 'Most entries (files and folders) in an archive (413 beyond).' }),
    maxCompressionRatio: Type.Integer({
      minimum: 2,
      default: 100,
      description: 'Highest unpacked/packed ratio of an archive, and of a zip entry above 1 MiB (archive bombs: 413).',
    }),
    maxRedirects: Type.Integer({ minimum: 0, maximum: 10, default: 5 }),
    timeoutMs: Type.Integer({ minimum: 1000, default: 60_000, description: 'Whole download deadline (connect within at most 10 s).' }),
    maxProjects: Type.Integer({ minimum: 1, default: 200, description: 'Projects one customer may hold.' }),
    extraCaFile: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'PEM file of extra trusted CA certificates for repository downloads (local test set-ups; production uses the system roots).',
      }),
    ),
  },
  { default: {}, additionalProperties: false },
);
export type ObjectWorkspaceConfig = Static<typeof ObjectWorkspaceSection>;
