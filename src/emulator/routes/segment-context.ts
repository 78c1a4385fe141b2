import type { FastifyInstance } from "fastify";
import type { Faults } from "../faults.ts";
import type { EmulatorOptions } from "../options.ts";
import type { Store } from "../store.ts";

/** What a segment may need beyond its routes; apart from `index.ts`, which imports every segment. */
export interface SegmentContext {
  app: FastifyInstance;
  options: EmulatorOptions;
  faults: Faults;
  store: Store;
  /** Folder for package files and other blobs. */
  workDir: string;
}
