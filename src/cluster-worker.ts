/** The entry of a worker of `fieldreport serve --workers N`: cluster.ts forks it. */
import cluster from 'node:cluster';
import { runWorker } from './cluster.js';

if (!cluster.isWorker) {
  process.stderr.write('fieldreport: cluster-worker is started by `fieldreport serve --workers N`, not on its own\n');
  process.exit(2);
}
runWorker();
