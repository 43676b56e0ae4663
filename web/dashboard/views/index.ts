/** Every dashboard view, in navigation order. A view receives the signed-in account and the hash route's params. */
import type { FunctionComponent } from 'preact';
import type { Answer } from '../../shared/api';
import { ActivityView } from './activity';
import { HomeView } from './home';
import { KeysView } from './keys';
import { MoneyView } from './money';
import { PromotionsView } from './promotions';
import { SettingsView } from './settings';
import { ProjectsView } from './projects';

/** Money as the `/api` answers carry it: integer micro-USD and the exact USD text. */
export type Money = Answer<'/api/v1/wallet/status'>['balance'];
/** The signed-in account (`GET /api/v1/me`). */
export type Me = Answer<'/api/v1/me'>;
/** What this service offers (`features` of `GET /api/v1/me`): views hide what is off. */
export type Features = Me['features'];

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
  /** Listed only when this says the service offers it. */
  offered?: (me: Me) => boolean;
}

export const VIEWS: View[] = [
  { name: 'home', title: 'Home', component: HomeView },
  { name: 'projects', title: 'Projects', component: ProjectsView },
  { name: 'keys', title: 'API keys', component: KeysView },
  { name: 'activity', title: 'Activity', component: ActivityView },
  { name: 'money', title: 'Money', component: MoneyView },
  {
    name: 'promotions',
    title: 'Promotions',
    component: PromotionsView,
    offered: (me) => Object.values(me.features.promotions).some(Boolean),
  },
  { name: 'settings', title: 'Settings', component: SettingsView },
];
