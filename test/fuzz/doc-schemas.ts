/**
 * The request side of the served OpenAPI document, as the contract checks read it: `$ref`s into
 * `components.schemas` followed, and an Ajv validator (JSON Schema 2020-12, as OpenAPI 3.1) that
 * says whether a value is one a schema of the document allows. "Valid" in the fuzz's positive and
 * negative checks means valid to this validator, never to the generator's own idea of the schema.
 */
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { REF_PREFIX, withComponentRefs } from "../helpers/component-refs.ts";

type Json = Record<string, unknown>;

const COMPONENTS_ID = "urn:fuzz:components";

/** The schema `$ref` names, its sibling keywords kept (OpenAPI 3.1 allows them); others as they are. */
export function resolverOf(doc: Json): (schema: Json) => Json {
  const named = ((doc.components as Json | undefined)?.schemas ?? {}) as Record<string, Json>;
  const resolve = (schema: Json, seen: string[] = []): Json => {
    const ref = schema.$ref;
    if (typeof ref !== "string") return schema;
    if (!ref.startsWith(REF_PREFIX)) throw new Error(`fuzz: a $ref outside components.schemas: ${ref}`);
    const name = ref.slice(REF_PREFIX.length);
    if (seen.includes(name)) throw new Error(`fuzz: a $ref cycle through ${name}`);
    const target = named[name];
    if (!target) throw new Error(`fuzz: unresolved $ref ${ref}`);
    const { $ref: _, ...siblings } = schema;
    return { ...resolve(target, [...seen, name]), ...siblings };
  };
  return (schema) => resolve(schema);
}

export interface SchemaValidator {
  /** Whether `value` is one `schema` (of the document, `$ref`s and all) allows. */
  valid(schema: Json, value: unknown): boolean;
}

export function validatorOf(doc: Json): SchemaValidator {
  const ajv = new Ajv2020({ allErrors: false, strict: false, validateFormats: true });
  addFormats(ajv);
  const defs = ((doc.components as Json | undefined)?.schemas ?? {}) as Json;
  ajv.addSchema({ $id: COMPONENTS_ID, $defs: withComponentRefs(defs, COMPONENTS_ID) });
  const compiled = new Map<string, ValidateFunction>();
  return {
    valid(schema, value) {
      const key = JSON.stringify(schema);
      let validate = compiled.get(key);
      if (!validate) {
        validate = ajv.compile(withComponentRefs(schema, COMPONENTS_ID) as Json);
        compiled.set(key, validate);
      }
      return validate(value) === true;
    },
  };
}
