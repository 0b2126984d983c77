// The Java program HotSpot runs in the realjit workload hotspot
// (docs/RUNNING-YOUR-JIT.md): a loop that the tiered compilers compile,
// with a known result the rig must not change.
public class Hello {
  static int f(int x) {
    return x * 3 + 1;
  }

  public static void main(String[] args) {
    long sum = 0;
    for (int i = 0; i < 20000; i++) {
      sum += f(i) % 7;
    }
    System.out.println("sum " + sum);
  }
}
