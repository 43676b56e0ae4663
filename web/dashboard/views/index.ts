/** Every dashboard view, in navigation order. A view receives the signed-in account and the hash route's params. */
import type { FunctionComponent } from 'preact';
import { HomeView } from './home';
import { KeysView } from './keys';
import { MoneyView } from './money';
import { PromotionsView } from './promotions';
import { SettingsView } from './settings';
import { ProjectsView } from './projects';

/** The parts of `GET /api/v1/me` the shell reads; views read more as they need. */
export interface Money {
  micros: number;
  usd: string;
}
export interface Me {
  customer: { id: number; email: string; username: string; name: string | null; vip: boolean; created_at: string };
  wallet: Money & { available: Money; held: Money; plan: string | null };
  two_factor_enabled: boolean;
  session: boolean;
  [key: string]: unknown;
}

export interface ViewProps {
  me: Me;
  /** Hash route segments after the view name (`#/projects/abc` → `['abc']`). */
  params: string[];
  reloadMe: () => Promise<void>;
}

export interface View {
  name: string;
  title: string;
  component: FunctionComponent<ViewProps>;
  /** Reachable by URL only (e.g. a detail view), not listed in the navigation. */
  hidden?: boolean;
}

export const VIEWS: View[] = [
  { name: 'home', title: 'Home', component: HomeView },
  { name: 'projects', title: 'Projects', component: ProjectsView },
  { name: 'keys', title: 'API keys', component: KeysView },
  { name: 'money', title: 'Money', component: MoneyView },
  { name: 'promotions', title: 'Promotions', component: PromotionsView },
  { name: 'settings', title: 'Settings', component: SettingsView },
];
