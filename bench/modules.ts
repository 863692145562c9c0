import type { BenchModule } from './bench-kit.js';
import { lineageBench } from './lineage-bench.js';

/**
 * Every bench module, run in this order on each backend. A capability adds its figures by
 * writing a module (`bench/<name>-bench.ts` exporting a BenchModule) and listing it here.
 */
export const BENCH_MODULES: BenchModule[] = [lineageBench];
