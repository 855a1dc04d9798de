/** Writes src/api-client/generated/graphql.ts from schema.graphql and the operation documents (a test fails when it drifts). */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { generateApiClient, GENERATED_FILE } from "./api-client-codegen.js";

mkdirSync(dirname(GENERATED_FILE), { recursive: true });
writeFileSync(GENERATED_FILE, await generateApiClient());
console.log(`wrote ${GENERATED_FILE}`);
