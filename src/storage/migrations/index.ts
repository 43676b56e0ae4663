/** The ordered list of migrations. Files are frozen once released; a change is a new file. */
import type { Migration } from 'kysely';
import * as chassis from './0001-chassis.js';
import * as gateway from './0002-gateway.js';
import * as billing from './0003-billing.js';
import * as agent from './0004-agent.js';
import * as agentProjects from './0005-agent-projects.js';
import * as gatewayStored from './0006-gateway-stored.js';
import * as direct from './0007-direct.js';
import * as authEpoch from './0008-auth-epoch.js';
import * as accounts from './0010-accounts.js';
import * as cacheWritePrices from './0013-cache-write-prices.js';
import * as payments from './0011-payments.js';
import * as promotions from './0012-promotions.js';
import * as autoTopup from './0015-auto-topup.js';
import * as desktop from './0014-desktop.js';
import * as desktopCoder from './0016-desktop-coder.js';
import * as desktopChatResearch from './0017-desktop-chat-research.js';
import * as objectWorkspaceChatbot from './0018-object-workspace-chatbot.js';
import * as scaleLeases from './0019-scale-leases.js';
import * as moneyChecks from './0020-money-checks.js';
import * as credentialScope from './0021-credential-scope.js';
import * as callNotes from './0022-call-notes.js';
import * as timedJobs from './0028-timed-jobs.js';
import * as activity from './0026-activity.js';
import * as joinedPaths from './0029-joined-paths.js';
import * as usageExport from './0024-usage-export.js';
import * as firstHour from './0025-first-hour.js';
import * as fewerCallIndexes from './0030-fewer-call-indexes.js';
import * as creditReservations from './0031-credit-reservations.js';

export const migrations: Record<string, Migration> = {
  '0001-chassis': chassis,
  '0002-gateway': gateway,
  '0003-billing': billing,
  '0004-agent': agent,
  '0005-agent-projects': agentProjects,
  '0006-gateway-stored': gatewayStored,
  '0007-direct': direct,
  '0008-auth-epoch': authEpoch,
  '0010-accounts': accounts,
  '0011-payments': payments,
  '0012-promotions': promotions,
  '0013-cache-write-prices': cacheWritePrices,
  '0015-auto-topup': autoTopup,
  '0014-desktop': desktop,
  '0016-desktop-coder': desktopCoder,
  '0017-desktop-chat-research': desktopChatResearch,
  '0018-object-workspace-chatbot': objectWorkspaceChatbot,
  '0019-scale-leases': scaleLeases,
  '0020-money-checks': moneyChecks,
  '0021-credential-scope': credentialScope,
  '0022-call-notes': callNotes,
  '0028-timed-jobs': timedJobs,
  '0026-activity': activity,
  '0029-joined-paths': joinedPaths,
  '0024-usage-export': usageExport,
  '0025-first-hour': firstHour,
  '0030-fewer-call-indexes': fewerCallIndexes,
  '0031-credit-reservations': creditReservations,
};
