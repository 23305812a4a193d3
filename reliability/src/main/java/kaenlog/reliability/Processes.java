package kaenlog.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** The signals and waits every child process of the reliability runs needs: a broker, a Streams application. */
final class Processes {
    private Processes() {
    }

    /** {@code kill -SIG pid}: STOP freezes the process between two instructions, CONT lets it go on, TERM asks it to stop. */
    static void signal(Process process, String name) throws IOException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).redirectErrorStream(true)
                .start();
        String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        try {
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IOException("kill -" + name + " " + process.pid() + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while signalling " + process.pid(), e);
        }
    }

    /** SIGTERM, then SIGKILL if the process has not exited within {@code graceSeconds}; does not wait for the exit. */
    static void stopGently(Process process, int graceSeconds) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(graceSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Waits up to 30 s for {@code process} (named {@code what} in the error) to exit; its exit status. */
    static int awaitExit(Process process, String what) throws IOException {
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IOException(what + " " + process.pid() + " did not exit");
            }
            return process.exitValue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + what + " " + process.pid() + " to exit", e);
        }
    }
}
