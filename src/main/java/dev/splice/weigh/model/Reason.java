package dev.splice.weigh.model;

import java.util.Map;

/** A failed quality gate: its name and the numbers that made it fail (insertion-ordered). */
public record Reason(String gate, Map<String, Object> numbers) {}
