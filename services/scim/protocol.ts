// SCIM 2.0's wire shapes (RFC 7643 resources, RFC 7644 messages), written once: the routes validate
// with these schemas and the services build these types.
import { type Static, Type as T } from "@sinclair/typebox";

export const userSchema = "urn:ietf:params:scim:schemas:core:2.0:User";
export const groupSchema = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const listSchema = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const patchSchema = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
export const errorSchema = "urn:ietf:params:scim:api:messages:2.0:Error";

export const scimContentType = "application/scim+json";

const Meta = T.Object({
  resourceType: T.String(),
  created: T.String(),
  lastModified: T.String(),
  location: T.String(),
});

const Email = T.Object({
  value: T.String(),
  type: T.Optional(T.String()),
  primary: T.Optional(T.Boolean()),
});

const Name = T.Object(
  {
    formatted: T.Optional(T.String()),
    familyName: T.Optional(T.String()),
    givenName: T.Optional(T.String()),
  },
  { additionalProperties: true },
);

/** A User as a client sends it (POST, PUT): unknown attributes are ignored, as RFC 7643 allows. */
export const ScimUserInput = T.Object(
  {
    schemas: T.Optional(T.Array(T.String())),
    userName: T.String({ minLength: 3, maxLength: 254 }),
    externalId: T.Optional(T.String({ maxLength: 512 })),
    displayName: T.Optional(T.String({ maxLength: 512 })),
    name: T.Optional(Name),
    emails: T.Optional(T.Array(Email)),
    active: T.Optional(T.Boolean()),
  },
  { additionalProperties: true },
);
export type ScimUserInputT = Static<typeof ScimUserInput>;

const GroupRef = T.Object({
  value: T.String(),
  display: T.Optional(T.String()),
  $ref: T.Optional(T.String()),
});

export const ScimUser = T.Object({
  schemas: T.Array(T.String()),
  id: T.String(),
  externalId: T.Optional(T.String()),
  userName: T.String(),
  displayName: T.Optional(T.String()),
  emails: T.Array(Email),
  active: T.Boolean(),
  groups: T.Array(GroupRef),
  meta: Meta,
});
export type ScimUserT = Static<typeof ScimUser>;

const Member = T.Object({ value: T.String(), display: T.Optional(T.String()), $ref: T.Optional(T.String()) });

export const ScimGroupInput = T.Object(
  {
    schemas: T.Optional(T.Array(T.String())),
    displayName: T.String({ minLength: 1, maxLength: 64 }),
    externalId: T.Optional(T.String()),
    members: T.Optional(T.Array(Member)),
  },
  { additionalProperties: true },
);
export type ScimGroupInputT = Static<typeof ScimGroupInput>;

export const ScimGroup = T.Object({
  schemas: T.Array(T.String()),
  id: T.String(),
  displayName: T.String(),
  members: T.Array(Member),
  meta: Meta,
});
export type ScimGroupT = Static<typeof ScimGroup>;

const PatchOperation = T.Object(
  {
    op: T.String({ description: "add, replace or remove (any case, as Entra ID sends them)" }),
    path: T.Optional(T.String({ maxLength: 512 })),
    value: T.Optional(T.Unknown()),
  },
  { additionalProperties: true },
);
export type PatchOperationT = Static<typeof PatchOperation>;

export const ScimPatch = T.Object(
  {
    schemas: T.Array(T.String()),
    Operations: T.Array(PatchOperation, { minItems: 1, maxItems: 1000 }),
  },
  { additionalProperties: true },
);
export type ScimPatchT = Static<typeof ScimPatch>;

/** A list's query (RFC 7644 §3.4.2); the routes declare it with Elysia's coercing integers. */
export interface ListQueryT {
  filter?: string | undefined;
  startIndex?: number | undefined;
  count?: number | undefined;
}

export interface ListResponse<R> {
  schemas: [typeof listSchema];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: R[];
}

/** A ListResponse of every item in one page (the discovery endpoints' few resources). */
export function wholeList<R>(items: R[]): ListResponse<R> {
  return {
    schemas: [listSchema],
    totalResults: items.length,
    startIndex: 1,
    itemsPerPage: items.length,
    Resources: items,
  };
}

export const listResponseOf = <R extends TSchemaLike>(resource: R) =>
  T.Object({
    schemas: T.Array(T.String()),
    totalResults: T.Integer(),
    startIndex: T.Integer(),
    itemsPerPage: T.Integer(),
    Resources: T.Array(resource),
  });
type TSchemaLike = Parameters<typeof T.Array>[0];

/** RFC 7644 §3.12's error body. */
export interface ScimError {
  schemas: [typeof errorSchema];
  status: string;
  scimType?: string;
  detail: string;
}
