import type { z } from "zod";
import {
  ContentApiCollection,
  type ContentApiEntity,
  type ContentApiEntitySet,
  ContentApiServiceDocument,
} from "../../wire/index.ts";
import { idOf } from "../args.ts";
import type { Caller } from "../caller.ts";
import type { Decoder } from "../envelope.ts";
import { InvalidArgumentError, NotFoundError, ResponseShapeError } from "../errors.ts";
import { type ODataQuery, odataParams, type SelectOnly } from "../odata.ts";
import { rootRoute } from "../route.ts";

/*
 * The Content API (`/contentapi/`), beyond the interface description: real instances serve it
 * beside the REST interface, and integrations read records through it. Its answers are OData JSON,
 * not envelopes; the session's token goes in the same Authorization header. An instance without
 * it answers 404 (NotFoundError). egp's own jobs do not use it.
 */

const ENTITY_SET = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The most records one answer holds on real instances (and the emulator's `$top` cap). */
const PAGE_SIZE = 1000;

function setName(name: string): string {
  if (!ENTITY_SET.test(name))
    throw new InvalidArgumentError(`Content API: "${name}" is not an entity set name`);
  return name;
}

/** Decodes an OData JSON body with a schema; a body of another shape is a ResponseShapeError. */
function odata<S extends z.ZodType>(schema: S): Decoder<z.output<S>> {
  return (payload, context) => {
    const result = schema.safeParse(payload);
    if (result.success) return result.data;
    throw new ResponseShapeError({ ...context, issues: result.error.issues });
  };
}

export function contentApiResource(caller: Caller) {
  const read = <T>(
    route: ReturnType<typeof rootRoute>,
    decode: Decoder<T>,
    query: Array<[string, string]> = [],
  ) => caller.call({ method: "GET", route, query, decode });

  return {
    /** The entity sets: one per level, named by the level's alias. */
    async entitySets(): Promise<ContentApiEntitySet[]> {
      const document = await read(rootRoute`/contentapi/`, odata(ContentApiServiceDocument));
      return document.value;
    },

    /** One page of a level's records, with OData options over its field aliases. */
    async records(entitySet: string, query?: ODataQuery): Promise<ContentApiEntity[]> {
      const at = rootRoute`/contentapi/${setName(entitySet)}`;
      return (await read(at, odata(ContentApiCollection), odataParams(query))).value;
    },

    /**
     * Every matching record, read in pages of 1000 (`$top`/`$skip`, the most one answer holds),
     * until a page comes back short.
     */
    async allRecords(
      entitySet: string,
      query?: Omit<ODataQuery, "top" | "skip">,
    ): Promise<ContentApiEntity[]> {
      const out: ContentApiEntity[] = [];
      for (;;) {
        const page = await this.records(entitySet, { ...query, top: PAGE_SIZE, skip: out.length });
        out.push(...page);
        if (page.length < PAGE_SIZE) return out;
      }
    },

    /** One record by its content id; NotFoundError when the level has no such record. */
    async record(entitySet: string, contentId: number, query?: SelectOnly): Promise<ContentApiEntity> {
      const id = idOf("contentId", contentId);
      const at = rootRoute`/contentapi/${setName(entitySet)}(${id})`;
      const [entity] = (await read(at, odata(ContentApiCollection), odataParams(query))).value;
      if (entity) return entity;
      throw new NotFoundError({
        code: "EGP_NOT_FOUND",
        message: `Content API: ${entitySet} has no record ${id}`,
        status: 404,
        method: "GET",
        path: at.path,
      });
    },
  };
}

export type ContentApiResource = ReturnType<typeof contentApiResource>;
