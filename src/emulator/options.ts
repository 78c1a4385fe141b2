import { z } from "zod";
import { type FaultSpec, NO_FAULTS, parseFaultSpec } from "./faults.ts";

export const DEFAULT_RELEASE = "6.14.0";

export const EmulatorOptionsSchema = z
  .object({
    port: z.number().int().min(0).max(65535).default(0),
    host: z.string().default("127.0.0.1"),
    /** `empty`, `demo-dev`, `demo-prod` or `scale:users=N,apps=M,records=R`. */
    seed: z.string().default("empty"),
    release: z
      .string()
      .regex(/^\d+\.\d+(\.\d+)*$/, "a release is written like 6.14.0")
      .default(DEFAULT_RELEASE),
    instance: z.string().min(1).default("Default"),
    /**
     * `foreign` behaves like an instance egp has never seen: package files in a layout of its own,
     * no package list or read (so no job status), HTML 404 pages for unknown paths.
     */
    profile: z.enum(["default", "foreign"]).default("default"),
    /**
     * Serve the surfaces beyond the interface description that integrations of real instances use
     * (the Content API, the CSRF lookup, `/api` paths from 6.5, the base path, the workflow action
     * POST, SOAP); false answers them 404, to show that egp's own job needs none of them.
     */
    integrations: z.boolean().default(true),
    adminPassword: z.string().min(1).default("Password1!"),
    /** The scheme word of the Authorization header; real instances use their own word. */
    scheme: z.string().regex(/^\S+$/).default("Platform"),
    /** Persist the state in this file: every write is on disk before it is answered (docs/emulator.md). */
    dataFile: z.string().optional(),
    /** Tests: returns an error to fail the next commit with, as a full disk would. */
    persistFault: z.custom<() => Error | undefined>((v) => typeof v === "function").optional(),
    faults: z
      .union([z.string(), z.custom<Partial<FaultSpec>>((v) => typeof v === "object" && v !== null)])
      .optional(),
    /** Time source, in epoch ms; tests pass one to move time forward. */
    clock: z.custom<() => number>((v) => typeof v === "function").optional(),
    /** Largest JSON body accepted, in bytes. */
    bodyLimit: z
      .number()
      .int()
      .positive()
      .default(8 * 1024 * 1024),
    jobs: z
      .object({
        /** Duration of a package generate job. */
        generateMs: z.number().int().min(0).default(200),
        /** Duration of a package install job; installs run one at a time. */
        installMs: z.number().int().min(0).default(300),
      })
      .prefault({}),
    limits: z
      .object({
        /** Largest package upload, in bytes. */
        uploadBytes: z
          .number()
          .int()
          .positive()
          .default(1024 * 1024 * 1024),
        /** Most entries a package zip may hold. */
        zipEntries: z.number().int().positive().default(10_000),
        /** Largest total size of a package's entries once expanded, in bytes. */
        zipExpandedBytes: z
          .number()
          .int()
          .positive()
          .default(2 * 1024 * 1024 * 1024),
        /** Largest total of a package's manifest.json and object files, which are parsed in memory. */
        zipJsonBytes: z
          .number()
          .int()
          .positive()
          .default(16 * 1024 * 1024),
        /** Most JSON objects and arrays a package's manifest.json and object files may hold. */
        zipJsonNodes: z.number().int().positive().default(100_000),
        /**
         * Most time, in ms, from the start of a request to the last byte of its body (headers
         * included); past it the answer is 408 and the connection closes.
         */
        requestMs: z.number().int().positive().default(300_000),
      })
      .prefault({}),
    /** Folder for package files and other blobs; a temp folder by default. */
    workDir: z.string().optional(),
    logger: z.boolean().default(false),
    /** PEM key and certificate: serve HTTPS instead of HTTP (tests of the client's TLS handling). */
    tls: z
      .object({ key: z.string().min(1), cert: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();

export type EmulatorOptionsInput = z.input<typeof EmulatorOptionsSchema>;
export type EmulatorOptions = Readonly<z.output<typeof EmulatorOptionsSchema>>;

export function parseEmulatorOptions(input: EmulatorOptionsInput): EmulatorOptions {
  return Object.freeze(EmulatorOptionsSchema.parse(input));
}

export function faultSpecOf(options: EmulatorOptions): FaultSpec {
  if (options.faults === undefined) return { ...NO_FAULTS };
  if (typeof options.faults === "string") return parseFaultSpec(options.faults);
  return { ...NO_FAULTS, ...options.faults };
}
