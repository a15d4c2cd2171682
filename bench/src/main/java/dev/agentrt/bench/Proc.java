package dev.agentrt.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/** What Linux says about a process in {@code /proc/<pid>}: resident memory and CPU time. */
final class Proc {

  /** Clock ticks per second of {@code /proc/<pid>/stat} (USER_HZ; 100 on Linux). */
  private static final double TICKS_PER_SECOND = 100.0;

  private Proc() {}

  /** {@code VmRSS} of {@code /proc/<pid>/status} in MiB; 0 when the process is gone. */
  static double rssMiB(long pid) {
    try {
      for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
        if (line.startsWith("VmRSS:")) {
          return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
        }
      }
    } catch (IOException | NumberFormatException e) {
      return 0;
    }
    return 0;
  }

  /** The 1-minute load average ({@code /proc/loadavg}); NaN where there is none. */
  static double loadAverage() {
    try {
      return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
    } catch (IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /** User plus system CPU seconds the process has used ({@code utime + stime}). */
  static double cpuSeconds(long pid) {
    try {
      return cpuSeconds(Files.readString(Path.of("/proc", Long.toString(pid), "stat")));
    } catch (IOException e) {
      return 0;
    }
  }

  /**
   * CPU seconds a JVM's own threads have used: its JIT compilers' and its garbage collectors'.
   *
   * @param compilers the threads HotSpot names {@code C1 CompilerThread…} and {@code C2
   *     CompilerThread…}
   * @param collectors G1's and Parallel's threads ({@code GC Thread#…}, {@code G1 Conc#…}, {@code
   *     G1 Refine#…}, {@code G1 Main Marker}, {@code G1 Service}); Serial's work in the {@code VM
   *     Thread}, with other safepoint work, and is not counted
   */
  record JvmThreads(double compilers, double collectors) {}

  /**
   * What the process's compiler and collector threads have used ({@code
   * /proc/<pid>/task/<tid>/comm} keeps 15 characters of a name): the CPU itself, not the
   * compilation or collection time the JVM reports, which counts the time a thread waits for a core
   * too; on two shared cores that is most of it. Zeros when the process is gone.
   */
  static JvmThreads jvmThreadsCpuSeconds(long pid) {
    double compilers = 0, collectors = 0;
    try (DirectoryStream<Path> threads =
        Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path thread : threads) {
        try {
          String name = Files.readString(thread.resolve("comm")).strip();
          if (isCompilerThread(name)) {
            compilers += cpuSeconds(Files.readString(thread.resolve("stat")));
          } else if (isCollectorThread(name)) {
            collectors += cpuSeconds(Files.readString(thread.resolve("stat")));
          }
        } catch (IOException e) {
          // the thread ended meanwhile
        }
      }
    } catch (IOException e) {
      return new JvmThreads(0, 0);
    }
    return new JvmThreads(compilers, collectors);
  }

  static boolean isCompilerThread(String name) {
    return name.startsWith("C1 CompilerThre") || name.startsWith("C2 CompilerThre");
  }

  static boolean isCollectorThread(String name) {
    return name.startsWith("GC Thread#")
        || name.startsWith("G1 Conc#")
        || name.startsWith("G1 Refine#")
        || name.equals("G1 Main Marker")
        || name.equals("G1 Service");
  }

  /** From the text of {@code /proc/<pid>/stat}: fields 14 and 15, counted after the command. */
  static double cpuSeconds(String stat) {
    String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
  }
}
