// Package openapicheck checks protorest's OpenAPI documents with tools no
// one here wrote: kin-openapi validates every golden document under
// ../../../testdata/openapi (the conformance fixtures' and the demo's,
// which the core module's tests keep equal to the live documents), and a
// YAML parser reads the YAML ones back to the same value as their JSON.
//
// It is a module of its own so that the core module's go.mod stays small;
// .ci/run runs its tests.
package openapicheck
