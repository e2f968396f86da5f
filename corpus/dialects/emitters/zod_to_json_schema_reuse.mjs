// What corpus/dialects/zod-to-json-schema/{reused_model,reused_union}.json were made with:
// zod-to-json-schema 3.25.2 over Zod 3 schemas (`zod/v3` of Zod 4.6.7), default options. Its
// default `$refStrategy: "root"` writes a schema used a second time as a `$ref` to the JSON
// pointer where it was first written (`#/anyOf/0/properties/address`): here one `z.object`
// constant and one `z.discriminatedUnion` constant, each used by both branches and in a list
// (SPEC §6 decision 88). Run from bindings/node, where both packages are installed:
// `cp corpus/dialects/emitters/zod_to_json_schema_reuse.mjs bindings/node/ &&
//  node bindings/node/zod_to_json_schema_reuse.mjs`.
import { z } from "zod/v3";
import { zodToJsonSchema } from "zod-to-json-schema";

const Address = z.object({
  street: z.string(),
  zip: z.string().optional().describe("Postal code."),
});
const Shipping = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("pickup"), address: Address, hours: z.string() }),
  z.object({ kind: z.literal("delivery"), address: Address, stops: z.array(Address) }),
]);
const Payment = z.discriminatedUnion("method", [
  z.object({ method: z.literal("card"), number: z.string() }),
  z.object({ method: z.literal("iban"), iban: z.string(), bic: z.string().nullable() }),
]);
const Order = z.discriminatedUnion("action", [
  z.object({ action: z.literal("pay"), payment: Payment, amount: z.number() }),
  z.object({ action: z.literal("refund"), payment: Payment, fallbacks: z.array(Payment) }),
]);
const out = {
  reused_model: zodToJsonSchema(Shipping),
  reused_union: zodToJsonSchema(Order),
};
console.log(JSON.stringify(out, null, 2));
