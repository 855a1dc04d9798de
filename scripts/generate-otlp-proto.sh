#!/usr/bin/env bash
# Regenerates src/modules/otlp/generated/otlp.{js,d.ts} (a protobufjs static module) from the
# .proto files in proto/ (OTLP traces and logs, google.rpc.Status). The output is committed;
# run this after changing a .proto file.
set -euo pipefail
cd "$(dirname "$0")/.."
out=src/modules/otlp/generated/otlp.js
protos=(proto/opentelemetry/proto/collector/trace/v1/trace_service.proto
        proto/opentelemetry/proto/collector/logs/v1/logs_service.proto
        proto/google/rpc/status.proto)
flags=(-t static-module -w esm --dependency protobufjs/minimal.js --no-delimited --no-verify --no-typeurl -p proto)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# pbts reads the JSDoc of the generated code: types from a commented build, the committed code without comments.
npx pbjs "${flags[@]}" -o "$tmp/otlp.js" "${protos[@]}"
npx pbts --no-comments -o src/modules/otlp/generated/otlp.d.ts "$tmp/otlp.js"
npx pbjs "${flags[@]}" --no-comments -o "$out" "${protos[@]}"
