/** Writes the printed GraphQL schema to schema.graphql (a test fails when it drifts). */
import { writeFileSync } from "node:fs";
import { printSchema } from "graphql";
import { schema } from "../src/graphql-schema.js";

writeFileSync(new URL("../schema.graphql", import.meta.url), printSchema(schema) + "\n");
console.log("wrote schema.graphql");
