"""How accurate the speed and time calculators are: published figures scored with leave-one-source-out fits."""
