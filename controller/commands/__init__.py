"""The CLI's commands, one module each (controller/cli.py loads only the one asked for)."""

# The --config option's help, the client commands' and `mjtable run`'s: here, so that a
# running table loads none of the client commands (some 0.7 MB).
CONFIG_HELP = ("table config (default $MJTABLE_CONFIG, else /etc/mjtable/table.yaml if it exists, "
               "else the shipped config/table.yaml)")
