#!/usr/bin/env node
// Validates Kubernetes manifests offline against the API's schemas (the npm
// package kubernetes-models: types, required fields, enums such as
// completionMode), plus pacer's own rule for an Indexed Job: --shard auto/N with
// N equal to completions and parallelism. No cluster or kubectl needed.
// Usage: node validate.js [--commands] FILE.yaml...
//   --commands: also print, one JSON line per container, its command and args
//   (for the test that runs them through `pacer --check-args`).
"use strict";
const fs = require("fs");
const yaml = require("js-yaml");

const models = {
  "batch/v1/Job": () => require("kubernetes-models/batch/v1/Job").Job,
  "v1/PersistentVolumeClaim": () => require("kubernetes-models/v1/PersistentVolumeClaim").PersistentVolumeClaim,
  "v1/Pod": () => require("kubernetes-models/v1/Pod").Pod,
};

// pacer's rule for an Indexed Job: each shard knows the count only from auto/N.
function checkIndexedJob(doc) {
  const spec = doc.spec || {};
  if (spec.completionMode !== "Indexed") return [];
  const problems = [];
  if (spec.parallelism !== spec.completions) {
    problems.push(`parallelism ${spec.parallelism} is not completions ${spec.completions}: the shards would not run at once`);
  }
  for (const c of spec.template.spec.containers) {
    const line = [...(c.command || []), ...(c.args || [])].join(" ");
    const m = line.match(/--shard\s+auto\/(\d+)/);
    if (!m) problems.push(`container ${c.name}: no --shard auto/N`);
    else if (Number(m[1]) !== spec.completions) {
      problems.push(`container ${c.name}: --shard auto/${m[1]} but completions is ${spec.completions}`);
    }
  }
  return problems;
}

function validateFile(file, printCommands) {
  let failures = 0;
  const docs = yaml.loadAll(fs.readFileSync(file, "utf8")).filter((d) => d);
  if (docs.length === 0) { console.error(`${file}: no document`); return 1; }
  for (const doc of docs) {
    const key = `${doc.apiVersion}/${doc.kind}`;
    const name = `${file}: ${doc.kind} ${doc.metadata && doc.metadata.name}`;
    if (!models[key]) { console.error(`${name}: no model for ${key} in this validator`); failures++; continue; }
    const Model = models[key]();
    const problems = [];
    try { new Model(doc).validate(); } catch (e) { problems.push(e.message); }
    if (doc.kind === "Job") problems.push(...checkIndexedJob(doc));
    if (problems.length) { console.error(`${name}: INVALID\n  ${problems.join("\n  ")}`); failures++; continue; }
    console.error(`${name}: valid`);
    if (printCommands && doc.kind === "Job") {
      for (const c of doc.spec.template.spec.containers) {
        console.log(JSON.stringify({ file, job: doc.metadata.name, container: c.name, command: c.command || [],
                                     args: c.args || [], env: c.env || [] }));
      }
    }
  }
  return failures;
}

const args = process.argv.slice(2);
const printCommands = args[0] === "--commands";
const files = printCommands ? args.slice(1) : args;
if (files.length === 0) { console.error("usage: node validate.js [--commands] FILE.yaml..."); process.exit(2); }
let failures = 0;
for (const f of files) {
  try { failures += validateFile(f, printCommands); } catch (e) { console.error(`${f}: ${e.message}`); failures++; }
}
process.exit(failures ? 1 : 0);
