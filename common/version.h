/* revrun's version and the runtime-spec version it implements. */
#ifndef REVRUN_VERSION_H
#define REVRUN_VERSION_H

#define REVRUN_VERSION "0.1.0"
#define REVRUN_SPEC_VERSION "1.0.2"
/* features.json: the oldest and newest runtime-spec a config may name */
#define REVRUN_SPEC_MIN "1.0.0"
#define REVRUN_SPEC_MAX "1.1.0"

#endif
