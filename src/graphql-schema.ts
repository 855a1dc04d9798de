// The schema: only imports. Each module's graphql.ts adds its types, queries and mutations.
import { builder } from "./graphql/builder.js";
import { applyPageSizeLimits } from "./graphql/connections.js";
import "./graphql/node.js";
import "./modules/workspaces/graphql.js";
import "./modules/templates/graphql.js";
import "./modules/evaluators/graphql.js";
import "./modules/shared-libraries/graphql.js";
import "./modules/runs/graphql.js";
import "./modules/spans/graphql.js";
import "./modules/dependencies/graphql.js";
import "./modules/posted-scores/graphql.js";
import "./modules/try-code/graphql.js";
import "./modules/datasets/graphql.js";
import "./modules/experiments/graphql.js";
import "./modules/sandbox/graphql.js";
import "./modules/backfills/graphql.js";
import "./modules/monitors/graphql.js";
import "./modules/groups/graphql.js";
import "./modules/retention/graphql.js";
import "./modules/connections/graphql.js";
import "./modules/judges/price-graphql.js";

/** The executable GraphQL schema. */
export const schema = applyPageSizeLimits(builder.toSchema({ sortSchema: true }));
