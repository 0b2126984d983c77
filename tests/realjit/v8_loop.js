// The JavaScript V8 runs in the realjit workload v8 (docs/RUNNING-YOUR-JIT.md):
// a loop hot enough for V8's compilers, with a known result.
let sum = 0;
for (let i = 0; i < 200000; i++) {
  sum += (i * 3 + 1) % 7;
}
console.log("sum " + sum);
