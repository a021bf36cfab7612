// Writes deploy/grafana/tally-dashboard.json from deploy/grafana/dashboard.ts (npm run dashboard).
import { writeFileSync } from 'node:fs';
import { DASHBOARD_JSON_PATH, renderDashboardJson } from './dashboard.js';

writeFileSync(DASHBOARD_JSON_PATH, renderDashboardJson());
console.log(`wrote ${DASHBOARD_JSON_PATH}`);
