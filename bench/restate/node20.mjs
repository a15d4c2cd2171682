// Restate's SDK calls Promise.withResolvers, which Node.js has from version 22 on; Debian's
// Node.js here is 20. The same function for older ones, as the proposal defines it. Imported
// before the SDK.
if (typeof Promise.withResolvers !== "function") {
  Promise.withResolvers = function withResolvers() {
    let resolve, reject;
    const promise = new Promise((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}
