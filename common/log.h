/* Logging for the daemon and tools. Library code logs only at LOG_DEBUG;
 * callers log once, with context. Before log_to_syslog() everything goes to
 * stderr prefixed with the program name. */
#pragma once

#include <stdbool.h>
#include <syslog.h>

void log_init(const char *program);
/* After daemonising: send messages to syslog (facility daemon). */
void log_to_syslog(void);
/* Messages at a priority numerically above max are dropped (default LOG_INFO). */
void log_set_max_level(int max);
bool log_is_syslog(void);

void log_msg(int priority, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warning(...) log_msg(LOG_WARNING, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERR, __VA_ARGS__)
