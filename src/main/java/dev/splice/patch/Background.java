package dev.splice.patch;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * Work that runs on a second thread while the caller goes on (bulk rewrites use both cores).
 * Only work whose result does not depend on timing goes here: it reads state that no longer
 * changes and the caller takes its result at a fixed point, so the output stays deterministic.
 * A failure is rethrown by {@link #join}, where the work would have run on one thread.
 */
final class Background<T> {
    private final FutureTask<T> task;

    private Background(FutureTask<T> task) {
        this.task = task;
    }

    static <T> Background<T> start(String name, Callable<T> work) {
        FutureTask<T> task = new FutureTask<>(work);
        Thread thread = new Thread(task, "splice-" + name);
        thread.setDaemon(true); // abandoned when the caller fails first
        thread.start();
        return new Background<>(task);
    }

    T join() {
        try {
            return task.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error error) {
                throw error;
            }
            throw new IllegalStateException(cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for " + task, e);
        }
    }
}
