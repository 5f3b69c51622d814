#!/bin/bash
# The official flink image's interface (jobmanager | taskmanager | any command; FLINK_PROPERTIES
# appended to the configuration; `flink` on PATH) over Flink's jars from Maven Central, which
# ship without Flink's bin/ scripts: the processes are started the way those scripts start them.
set -euo pipefail
conf=$FLINK_HOME/conf
classpath="$FLINK_HOME/lib/*"
if [[ -n ${FLINK_PROPERTIES:-} ]]; then
    # fresh on every start (a restart must not add twice); Flink 1.20 refuses a key given twice,
    # so a property given here replaces the default's line
    cp "$conf/config.base.yaml" "$conf/config.yaml"
    while IFS= read -r line; do
        if [[ $line =~ ^([A-Za-z0-9._-]+): ]]; then
            sed -i "/^${BASH_REMATCH[1]//./\\.}:/d" "$conf/config.yaml"
        fi
    done <<<"$FLINK_PROPERTIES"
    printf '%s\n' "$FLINK_PROPERTIES" >>"$conf/config.yaml"
fi

# Flink's BashJavaUtils derives the JVM options (line 1) and dynamic properties (line 2) from the
# configured process size, as bin/jobmanager.sh and bin/taskmanager.sh do
resource_params() {
    java -cp "$classpath" org.apache.flink.runtime.util.bash.BashJavaUtils "$1" --configDir "$conf" \
        | sed -n 's/^BASH_JAVA_UTILS_EXEC_RESULT://p'
}

start() {
    local main=$1 params
    mapfile -t params < <(resource_params "$2")
    # word splitting of the two lines is intended: they are lists of options
    # shellcheck disable=SC2086
    exec java $FLINK_JAVA_DEFAULT_OPTS ${params[0]} -Dlog4j.configurationFile="$conf/log4j-console.properties" -cp "$classpath" \
        "$main" --configDir "$conf" ${params[1]:-}
}

case ${1:-help} in
    jobmanager) start org.apache.flink.runtime.entrypoint.StandaloneSessionClusterEntrypoint GET_JM_RESOURCE_PARAMS ;;
    taskmanager) start org.apache.flink.runtime.taskexecutor.TaskManagerRunner GET_TM_RESOURCE_PARAMS ;;
    help) echo "usage: jobmanager | taskmanager | COMMAND [ARGS...] (e.g. flink run ...)" ;;
    *) exec "$@" ;;
esac
