// What corpus/dialects/zod4-draft2020-12/{nested_discriminated_union,union_of_objects}.json were made
// with: Zod 4.6.7 `z.toJSONSchema` (run from bindings/node, where zod is installed:
// `cp corpus/dialects/emitters/zod_unions.mjs bindings/node/ && node bindings/node/zod_unions.mjs`).
import * as z from "zod";
const Black = z.object({ pet_type: z.literal("cat"), color: z.literal("black"), black_name: z.string() });
const White = z.object({ pet_type: z.literal("cat"), color: z.literal("white"), white_name: z.string() });
const Dog = z.object({ pet_type: z.literal("dog"), name: z.string() });
const Cat = z.discriminatedUnion("color", [Black, White]);
const Pet = z.discriminatedUnion("pet_type", [Cat, Dog]);
const Source = z.union([
  z.object({ path: z.string().describe("A file path.") }),
  z.object({ url: z.string().url(), headers: z.record(z.string(), z.string()).optional() }),
]);
const out = {
  nested_discriminated_union: z.toJSONSchema(Pet),
  union_of_objects: z.toJSONSchema(Source),
};
console.log(JSON.stringify(out, null, 2));
