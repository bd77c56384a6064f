// SCIM's self-description (RFC 7644 §4, RFC 7643 §5-7): what this service provider supports, its two
// resource types, and the attributes of each that it keeps.
import { groupSchema, userSchema } from "./protocol.ts";

const spcSchema = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const resourceTypeSchema = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const schemaSchema = "urn:ietf:params:scim:schemas:core:2.0:Schema";

export const maxResults = 200;

export const serviceProviderConfig = (baseUrl: string) => ({
  schemas: [spcSchema],
  documentationUri: "https://datatracker.ietf.org/doc/html/rfc7644",
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: "oauthbearertoken",
      name: "OAuth Bearer Token",
      description: "The organization's SCIM token (POST /admin/scim/tokens), as Authorization: Bearer",
      primary: true,
    },
  ],
  meta: { resourceType: "ServiceProviderConfig", location: `${baseUrl}/ServiceProviderConfig` },
});

export const resourceTypes = (baseUrl: string) => [
  {
    schemas: [resourceTypeSchema],
    id: "User",
    name: "User",
    endpoint: "/Users",
    description: "A member of the organization",
    schema: userSchema,
    meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/User` },
  },
  {
    schemas: [resourceTypeSchema],
    id: "Group",
    name: "Group",
    endpoint: "/Groups",
    description: "A role of the organization; its members hold it",
    schema: groupSchema,
    meta: { resourceType: "ResourceType", location: `${baseUrl}/ResourceTypes/Group` },
  },
];

/** A SCIM attribute definition (RFC 7643 section 7). */
interface ScimAttribute {
  name: string;
  type: "string" | "boolean" | "complex";
  multiValued: boolean;
  required: boolean;
  caseExact: boolean;
  mutability: "readOnly" | "readWrite" | "immutable";
  returned: "default";
  uniqueness: "none" | "server";
  description?: string;
  subAttributes?: ScimAttribute[];
}

const attribute = (name: string, extra: Partial<Omit<ScimAttribute, "name">> = {}): ScimAttribute => ({
  name,
  type: "string",
  multiValued: false,
  required: false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: "none",
  ...extra,
});

export const schemas = (baseUrl: string) => [
  {
    schemas: [schemaSchema],
    id: userSchema,
    name: "User",
    description: "A member of the organization",
    attributes: [
      attribute("userName", { required: true, uniqueness: "server", description: "The e-mail address" }),
      attribute("displayName"),
      attribute("active", { type: "boolean", description: "false: deactivated, sessions and keys end" }),
      attribute("emails", {
        type: "complex",
        multiValued: true,
        mutability: "readOnly",
        subAttributes: [attribute("value"), attribute("type"), attribute("primary", { type: "boolean" })],
      }),
      attribute("groups", { type: "complex", multiValued: true, mutability: "readOnly" }),
    ],
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${userSchema}` },
  },
  {
    schemas: [schemaSchema],
    id: groupSchema,
    name: "Group",
    description: "A role of the organization",
    attributes: [
      attribute("displayName", { required: true, uniqueness: "server" }),
      attribute("members", {
        type: "complex",
        multiValued: true,
        subAttributes: [attribute("value", { mutability: "immutable" }), attribute("display")],
      }),
    ],
    meta: { resourceType: "Schema", location: `${baseUrl}/Schemas/${groupSchema}` },
  },
];
