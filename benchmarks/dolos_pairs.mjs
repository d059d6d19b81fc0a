// Dolos (@dodona/dolos-lib, tree-sitter and winnowing) on each exercise of a class, as its own command does it.
//
//     node benchmarks/dolos_pairs.mjs DOLOS_LIB < class.json > pairs.json
//     DOLOS_LIB: the path of dolos-lib's dist/index.js (make dolos installs it under .run/dolos/)
//     class.json: {exercise: {"ignore": the code given to everyone, "files": {student: code}}}
//     pairs.json: {exercise: [[student, student, similarity, longest fragment, total overlap], ...]}
//
// Each exercise gets a Dolos of its own (Python, its default k-grams and windows, the given code as its
// template to ignore); every pair Dolos scores is written out but those sharing nothing.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const { Dolos, File } = await import(pathToFileURL(process.argv[2]).href);
const exercises = JSON.parse(readFileSync(0, "utf-8"));
const found = {};
for (const [name, exercise] of Object.entries(exercises)) {
  const files = Object.entries(exercise.files).map(([student, code]) => new File(`${student}.py`, code));
  if (files.length < 2) {
    found[name] = [];
    continue;
  }
  const ignore = exercise.ignore ? new File("given.py", exercise.ignore) : undefined;
  const report = await new Dolos({ language: "python" }).analyze(files, name, ignore);
  found[name] = report.allPairs().filter(pair => pair.similarity > 0).map(pair => [
    pair.leftFile.path.slice(0, -3), pair.rightFile.path.slice(0, -3), pair.similarity, pair.longest, pair.overlap]);
}
process.stdout.write(JSON.stringify(found));
