/**
 * The deployment: its stored settings and the start of a node (app/settings.ts, app/bootstrap.ts).
 * The entry module surfaces import (ARCHITECTURE.md: layer rules).
 */
export { createAppContext } from '../bootstrap.js';
export { changeSetting, getSettingView, listSettingViews } from '../settings.js';
export type { SettingView } from '../settings.js';
