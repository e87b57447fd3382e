# Independent oracle for Splice's bisquare stage: Tukey's bisquare (MASS::psi.bisquare, c = 4.685)
# at a fixed scale, by iteratively reweighted least squares with lm.wfit, from given coefficients.
# Usage: Rscript bisquare_reference.R DATA.csv START.csv SCALE
# DATA.csv has columns y, run, O, D, W and h (prior inverse-variance weights); START.csv one
# coefficient per line in the order of the model matrix below. Prints each coefficient (17 digits).
suppressPackageStartupMessages(library(MASS))
args <- commandArgs(trailingOnly = TRUE)
d <- read.csv(args[1])
d$run <- factor(d$run, levels = sort(unique(d$run)))
beta <- read.csv(args[2], header = FALSE)[[1]]
s <- as.numeric(args[3])
x <- model.matrix(~ run + O + D + W, data = d, contrasts.arg = list(run = "contr.sum"))
for (i in 1:10000) {
  r <- d$y - drop(x %*% beta)
  w <- d$h * psi.bisquare(sqrt(d$h) * r / s, c = 4.685)
  fit <- lm.wfit(x, d$y, w)
  r.new <- d$y - drop(x %*% fit$coefficients)
  done <- sqrt(sum((r - r.new)^2) / sum(r^2)) <= 1e-13
  beta <- fit$coefficients
  if (done) break
}
for (i in seq_along(beta)) cat(colnames(x)[i], sprintf("%.17g", beta[[i]]), "\n")
cat("iterations", i, "\n")
