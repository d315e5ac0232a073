// Compiled by .ci/clients against the types openapi-typescript generates from
// app/api/openapi.json (schema.d.ts, written next to this file in a scratch directory).
// Each line is something a TypeScript client developer relies on; a document change that
// breaks one fails compilation.
import type { components, paths } from "./schema";

type S = components["schemas"];
type Expect<T extends true> = T;
type IsOptional<O, K extends keyof O> = {} extends Pick<O, K> ? true : false;
type IsRequired<O, K extends keyof O> = IsOptional<O, K> extends true ? false : true;
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

// Optional request fields stay optional: the server applies their defaults.
const member: S["MemberInput"] = { name: "Ada", email: "ada@acme.example" };
const chat: S["ChatInput"] = {};
const message: S["MessageInput"] = { role: "user", messages: [{ role: "user", parts: [{ type: "text", text: "Hi" }] }] };
const assistant: S["AssistantCreateInput"] = { name: "Helpdesk", config: { instructions: "Be brief." } };

// Free-form objects take any property.
const connection: S["ConnectionInput"] = { type: "HTTP_CREDENTIALS", name: "CRM", config: { base_url: "https://crm.example", retries: 3 } };
const channel: S["ChannelInput"] = { type: "custom", platform_data: { crm: { id: 7 } } };
const fields: S["FieldsInput"] = { action_id: "tools:http_request", input: { method: "GET" } };
const tool: S["ToolInput"] = { name: "lookup", parameters: { type: "object" } };

// Request bodies of the operations are these schemas.
type CreateContact = paths["/orgs/{org}/contacts"]["post"]["requestBody"];
const contact: NonNullable<CreateContact>["content"]["application/json"] = { name: "Grace Hopper" };

// Answers: fields that are always present are required; nullable ones admit null.
type _answers = [
  Expect<IsRequired<S["Usage"], "input_tokens">>,
  Expect<IsRequired<S["Usage"], "turns">>,
  Expect<IsOptional<S["Usage"], "estimated">>,
  Expect<IsRequired<S["AssistantConfig"], "timezone">>,
  Expect<IsRequired<S["AssistantConfig"]["conversation"], "enable_memories">>,
  Expect<IsRequired<S["OrgConfig"], "terms_url">>,
  Expect<IsRequired<S["Tool"], "enabled_by_default">>,
  Expect<IsRequired<S["Recipient"], "click_count">>,
  Expect<IsRequired<S["BulkChannel"], "email">>,
  Expect<IsOptional<S["BulkChannelInput"], "email">>,
  Expect<IsRequired<S["Contact"], "blocked_at">>,
  Expect<Equal<S["Contact"]["blocked_at"], string | null>>,
  Expect<Equal<S["UsageRow"]["total_tokens"], number>>,
  Expect<Equal<S["Org"]["balance"], number>>,
];

// The error body every 4xx carries.
function fieldsOf(e: S["Error"]): Record<string, string> {
  return e.error.fields;
}

export const used = [member, chat, message, assistant, connection, channel, fields, tool, contact, fieldsOf];
